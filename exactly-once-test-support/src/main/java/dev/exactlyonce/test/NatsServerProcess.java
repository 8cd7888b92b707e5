package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code nats-server} with JetStream (unless made {@link #withoutJetStream()}), its store in its own temporary directory ({@code -sd}),
 * listening on a free loopback port (or on every address: {@link #onAllAddresses()}). The binary is
 * {@code $NATS_SERVER_BIN}, else {@code /usr/sbin/nats-server}, else {@code nats-server} on the path.
 */
public class NatsServerProcess extends ServerProcess {

	private final boolean jetStream;

	private final String address;

	private final String configuration;

	/** Creates the handle; call {@link #start()}. */
	public NatsServerProcess() {
		this(true, "127.0.0.1", null);
	}

	private NatsServerProcess(boolean jetStream, String address, String configuration) {
		super("nats-server");
		this.jetStream = jetStream;
		this.address = address;
		this.configuration = configuration;
	}

	/**
	 * A server with JetStream that also reads a configuration file (TLS, authorization, accounts);
	 * address, port and store directory stay the ones the handle chose.
	 * @param configuration the file's text, in nats-server's configuration syntax
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess withConfiguration(String configuration) {
		return new NatsServerProcess(true, "127.0.0.1", configuration);
	}

	/**
	 * A server with JetStream off, as a plain {@code nats-server} runs without {@code -js}.
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess withoutJetStream() {
		return new NatsServerProcess(false, "127.0.0.1", null);
	}

	/**
	 * A server with JetStream that listens on every local address ({@code 0.0.0.0}), so that a
	 * process in another network namespace can reach it through a veth pair; {@link #url()} stays
	 * the loopback one.
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess onAllAddresses() {
		return new NatsServerProcess(true, "0.0.0.0", null);
	}

	@Override
	protected List<String> command() {
		String executable = executable("NATS_SERVER_BIN", "/usr/sbin/nats-server", "nats-server");
		if (!this.jetStream) {
			return List.of(executable, "-a", this.address, "-p", Integer.toString(port()));
		}
		List<String> command = new ArrayList<>(List.of(executable, "-a", this.address, "-p", Integer.toString(port()),
				"-js", "-sd", directory().resolve("jetstream").toString()));
		if (this.configuration != null) {
			Path file = directory().resolve("nats-server.conf");
			try {
				Files.writeString(file, this.configuration);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			command.addAll(List.of("-c", file.toString()));
		}
		return command;
	}

	@Override
	protected String installHint() {
		return "install it (Debian: apt-get install nats-server), or set the environment variable NATS_SERVER_BIN "
				+ "to the path of the nats-server executable (the file, not its directory); it is looked for as "
				+ "$NATS_SERVER_BIN, then /usr/sbin/nats-server, then nats-server on the PATH";
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
