package dev.exactlyonce.faults;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the external programs are.
 */
final class Binaries {

	private Binaries() {
	}

	/** {@code $NATS_SERVER_BIN}, else {@code /usr/sbin/nats-server}, else {@code nats-server} on the path. */
	static String natsServer() {
		String configured = System.getenv("NATS_SERVER_BIN");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		return Files.isExecutable(Path.of("/usr/sbin/nats-server")) ? "/usr/sbin/nats-server" : "nats-server";
	}

	/** The {@code java} of the running JVM. */
	static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
