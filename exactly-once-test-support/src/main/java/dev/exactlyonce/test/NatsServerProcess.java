package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code nats-server} with JetStream (unless made {@link #withoutJetStream()}), its store in its own temporary directory ({@code -sd}),
 * listening on a free loopback port. The binary is {@code $NATS_SERVER_BIN}, else
 * {@code /usr/sbin/nats-server}, else {@code nats-server} on the path.
 */
public class NatsServerProcess extends ServerProcess {

	private final boolean jetStream;

	private final String configuration;

	/** Creates the handle; call {@link #start()}. */
	public NatsServerProcess() {
		this(true, null);
	}

	private NatsServerProcess(boolean jetStream, String configuration) {
		super("nats-server");
		this.jetStream = jetStream;
		this.configuration = configuration;
	}

	/**
	 * A server with JetStream that also reads a configuration file (TLS, authorization, accounts);
	 * address, port and store directory stay the ones the handle chose.
	 * @param configuration the file's text, in nats-server's configuration syntax
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess withConfiguration(String configuration) {
		return new NatsServerProcess(true, configuration);
	}

	/**
	 * A server with JetStream off, as a plain {@code nats-server} runs without {@code -js}.
	 * @return the handle; call {@link #start()}
	 */
	public static NatsServerProcess withoutJetStream() {
		return new NatsServerProcess(false, null);
	}

	@Override
	protected List<String> command() {
		String executable = executable("NATS_SERVER_BIN", "/usr/sbin/nats-server", "nats-server");
		if (!this.jetStream) {
			return List.of(executable, "-a", "127.0.0.1", "-p", Integer.toString(port()));
		}
		List<String> command = new ArrayList<>(List.of(executable, "-a", "127.0.0.1", "-p", Integer.toString(port()),
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
