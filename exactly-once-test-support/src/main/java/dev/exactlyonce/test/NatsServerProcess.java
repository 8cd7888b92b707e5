package dev.exactlyonce.test;

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
		return List.of(executable("NATS_SERVER_BIN", "/usr/sbin/nats-server", "nats-server"), "-a", "127.0.0.1",
				"-p", Integer.toString(port()), "-js", "-sd", directory().resolve("jetstream").toString());
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

}
