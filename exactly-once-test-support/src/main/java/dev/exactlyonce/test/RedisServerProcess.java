package dev.exactlyonce.test;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code redis-server} on a free loopback port, working in its own temporary directory; by
 * default without persistence ({@code --save "" --appendonly no}), so a restart starts empty as a
 * Redis without persistence does after a crash, or with an append-only file; optionally over TLS
 * with a password. The binary is
 * {@code $REDIS_SERVER_BIN}, else {@code /usr/bin/redis-server}, else {@code redis-server} on the
 * path.
 */
public class RedisServerProcess extends ServerProcess {

	private final String appendFsync;

	private final SelfSignedCertificate certificate;

	private final String password;

	private final List<String> moreAddresses;

	/** Creates the handle of a server without persistence; call {@link #start()}. */
	public RedisServerProcess() {
		this(null);
	}

	/**
	 * Creates the handle; call {@link #start()}.
	 * @param appendFsync the append-only file's fsync policy ({@code always}, {@code everysec}),
	 * or {@code null} for no persistence
	 */
	public RedisServerProcess(String appendFsync) {
		this(appendFsync, null, null, List.of());
	}

	/**
	 * Creates the handle of a server that also listens on other local addresses (e.g. the root
	 * side of a veth pair, for a client in another network namespace; protected mode is then off,
	 * as those clients are not on loopback); call {@link #start()}.
	 * @param appendFsync the append-only file's fsync policy, or {@code null} for no persistence
	 * @param moreAddresses local addresses to listen on besides {@code 127.0.0.1}; they must exist
	 */
	public RedisServerProcess(String appendFsync, List<String> moreAddresses) {
		this(appendFsync, null, null, moreAddresses);
	}

	private RedisServerProcess(String appendFsync, SelfSignedCertificate certificate, String password,
			List<String> moreAddresses) {
		super("redis-server");
		this.appendFsync = appendFsync;
		this.certificate = certificate;
		this.password = password;
		this.moreAddresses = List.copyOf(moreAddresses);
	}

	/**
	 * A server without persistence that takes only TLS connections on its port (no client
	 * certificate asked) and requires a password ({@code requirepass}).
	 * @param certificate the certificate the server presents
	 * @param password the password clients must give
	 * @return the handle; call {@link #start()}
	 */
	public static RedisServerProcess withTlsAndPassword(SelfSignedCertificate certificate, String password) {
		return new RedisServerProcess(null, certificate, password, List.of());
	}

	@Override
	protected List<String> command() {
		List<String> command = new ArrayList<>(List.of(executable("REDIS_SERVER_BIN", "/usr/bin/redis-server",
				"redis-server"), "--bind", "127.0.0.1"));
		command.addAll(this.moreAddresses);
		command.addAll(List.of("--save", "", "--dir", directory().toString()));
		if (!this.moreAddresses.isEmpty()) {
			command.addAll(List.of("--protected-mode", "no"));
		}
		if (this.certificate != null) {
			command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port()), "--tls-cert-file",
					this.certificate.certificate().toString(), "--tls-key-file", this.certificate.privateKey().toString(),
					"--tls-ca-cert-file", this.certificate.certificate().toString(), "--tls-auth-clients", "no"));
		}
		else {
			command.addAll(List.of("--port", Integer.toString(port())));
		}
		if (this.password != null) {
			command.addAll(List.of("--requirepass", this.password));
		}
		if (this.appendFsync != null) {
			command.addAll(List.of("--appendonly", "yes", "--appendfsync", this.appendFsync));
		}
		else {
			command.addAll(List.of("--appendonly", "no"));
		}
		return command;
	}

	/**
	 * The host the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return "127.0.0.1";
	}

	@Override
	public RedisServerProcess start() {
		super.start();
		return this;
	}

}
