package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

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

	/**
	 * {@code $FAKETIME_LIB}, else the multi-threaded libfaketime of Debian's {@code faketime} package
	 * ({@code /usr/lib/<multiarch>/faketime/libfaketimeMT.so.1}).
	 * @throws IllegalStateException naming the package to install when it is missing
	 */
	static String libfaketime() {
		String configured = System.getenv("FAKETIME_LIB");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		try (Stream<Path> libraries = Files.list(Path.of("/usr/lib"))) {
			return libraries.map((directory) -> directory.resolve("faketime/libfaketimeMT.so.1"))
				.filter(Files::isReadable)
				.findFirst()
				.map(Path::toString)
				.orElseThrow(() -> new IllegalStateException(
						"libfaketime is missing (no /usr/lib/*/faketime/libfaketimeMT.so.1): apt-get install faketime, "
								+ "or set FAKETIME_LIB to the library"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The {@code java} of the running JVM. */
	static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

}
