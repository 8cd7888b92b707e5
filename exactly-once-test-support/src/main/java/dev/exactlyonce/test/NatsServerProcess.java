package dev.exactlyonce.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@code nats-server} with JetStream, its store in its own temporary directory ({@code -sd}),
 * listening on a free loopback port. The binary is {@code $NATS_SERVER_BIN}, else
 * {@code /usr/sbin/nats-server}, else {@code nats-server} on the path.
 */
public class NatsServerProcess extends ServerProcess {

	/** Creates the handle; call {@link #start()}. */
	public NatsServerProcess() {
		super("nats-server");
	}

	@Override
	protected List<String> command() {
		return List.of(binary(), "-a", "127.0.0.1", "-p", Integer.toString(port()), "-js", "-sd",
				directory().resolve("jetstream").toString());
	}

	/**
	 * The client URL.
	 * @return {@code nats://127.0.0.1:<port>}
	 */
	public String url() {
		return "nats://127.0.0.1:" + port();
	}

	@Override
	public NatsServerProcess start() {
		super.start();
		return this;
	}

	private static String binary() {
		String configured = System.getenv("NATS_SERVER_BIN");
		if (configured != null && !configured.isBlank()) {
			return configured;
		}
		return Files.isExecutable(Path.of("/usr/sbin/nats-server")) ? "/usr/sbin/nats-server" : "nats-server";
	}

}
