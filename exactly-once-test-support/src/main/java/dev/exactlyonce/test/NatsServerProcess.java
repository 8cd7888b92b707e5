package dev.exactlyonce.test;

import java.util.List;

/**
 * A {@code nats-server} with JetStream (unless made {@link #withoutJetStream()}), its store in its own temporary directory ({@code -sd}),
 * listening on a free loopback port. The binary is {@code $NATS_SERVER_BIN}, else
 * {@code /usr/sbin/nats-server}, else {@code nats-server} on the path.
 */
public class NatsServerProcess extends ServerProcess {

	private final boolean jetStream;

	/** Creates the handle; call {@link #start()}. */
	public NatsServerProcess() {
		this(true);
	}

	private NatsServerProcess(boolean jetStream) {
		super("nats-server");
		this.jetStream = jetStream;
	}

	/**
	 * A server with JetStream off, as a plain {@code nats-server} runs without {@code -js}.
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess withoutJetStream() {
		return new NatsServerProcess(false);
	}

	@Override
	protected List<String> command() {
		String executable = executable("NATS_SERVER_BIN", "/usr/sbin/nats-server", "nats-server");
		if (!this.jetStream) {
			return List.of(executable, "-a", "127.0.0.1", "-p", Integer.toString(port()));
		}
		return List.of(executable, "-a", "127.0.0.1", "-p", Integer.toString(port()), "-js", "-sd",
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

}
