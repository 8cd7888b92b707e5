package dev.exactlyonce.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.exactlyonce.nats.NatsConnectionSettings;

/**
 * NATS connection settings, bound from {@code exactlyonce.nats.*}.
 */
public class NatsProperties {

	/** NATS server URLs. */
	private List<String> servers = new ArrayList<>(List.of("nats://localhost:4222"));

	/** Connection name shown in the server's monitoring. */
	private String connectionName = "exactly-once";

	/** User name for user/password authentication. */
	private String username;

	/** Password for user/password authentication. */
	private String password;

	/** Token for token authentication. */
	private String token;

	/** Path to a NATS credentials (JWT + NKey) file. */
	private Path credentialsFile;

	/** Path to a file holding an NKey seed (SU...), for NKey authentication without a JWT. */
	private Path nkeyFile;

	/** Timeout for establishing the connection. */
	private Duration connectionTimeout = Duration.ofSeconds(5);

	/** Timeout of JetStream API requests and of each publish attempt. */
	private Duration requestTimeout = Duration.ofSeconds(5);

	/** Wait between reconnect attempts. */
	private Duration reconnectWait = Duration.ofSeconds(2);

	/**
	 * Prefix of the connection's reply inboxes (the client's default is {@code _INBOX}). A worker
	 * given a prefix of its own needs to subscribe to {@code <prefix>.>} only, not to every client's
	 * {@code _INBOX.>}; with an owner account it is the only inbox subject to export.
	 */
	private String inboxPrefix = "_INBOX";

	/** TLS settings. */
	private final Tls tls = new Tls();

	public List<String> getServers() {
		return this.servers;
	}

	public void setServers(List<String> servers) {
		this.servers = servers;
	}

	public String getConnectionName() {
		return this.connectionName;
	}

	public void setConnectionName(String connectionName) {
		this.connectionName = connectionName;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	public String getToken() {
		return this.token;
	}

	public void setToken(String token) {
		this.token = token;
	}

	public Path getCredentialsFile() {
		return this.credentialsFile;
	}

	public void setCredentialsFile(Path credentialsFile) {
		this.credentialsFile = credentialsFile;
	}

	public Path getNkeyFile() {
		return this.nkeyFile;
	}

	public void setNkeyFile(Path nkeyFile) {
		this.nkeyFile = nkeyFile;
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
	}

	public Duration getRequestTimeout() {
		return this.requestTimeout;
	}

	public void setRequestTimeout(Duration requestTimeout) {
		this.requestTimeout = requestTimeout;
	}

	public Duration getReconnectWait() {
		return this.reconnectWait;
	}

	public void setReconnectWait(Duration reconnectWait) {
		this.reconnectWait = reconnectWait;
	}

	public String getInboxPrefix() {
		return this.inboxPrefix;
	}

	public void setInboxPrefix(String inboxPrefix) {
		this.inboxPrefix = inboxPrefix;
	}

	public Tls getTls() {
		return this.tls;
	}

	/**
	 * The settings that open the connection.
	 * @param details where the connection goes and how it logs in (from these properties unless the
	 * application defines its own)
	 * @return the connection settings
	 */
	public NatsConnectionSettings toConnectionSettings(NatsConnectionDetails details) {
		return new NatsConnectionSettings(details.getServers(), this.connectionName, details.getUsername(),
				details.getPassword(), details.getToken(), this.credentialsFile, this.nkeyFile, this.connectionTimeout, this.reconnectWait, this.tls.isEnabled(),
				this.tls.isVerifyHostname(), this.inboxPrefix, (details instanceof PropertiesNatsConnectionDetails)
						? "exactlyonce.nats.servers" : "the NatsConnectionDetails bean " + details.getClass().getName());
	}

	/** TLS settings of the NATS connection. */
	public static class Tls {

		/** Whether to connect with TLS using the JVM's default trust store. */
		private boolean enabled;

		/** Name of a Spring SSL bundle (spring.ssl.bundle.*) to build the TLS context from. */
		private String bundle;

		/**
		 * Whether the server's certificate must name the host in exactlyonce.nats.servers (a DNS name or
		 * IP address among its subject alternative names), as HTTPS clients require. Turn off only for
		 * servers reached by an address their certificate does not list.
		 */
		private boolean verifyHostname = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getBundle() {
			return this.bundle;
		}

		public void setBundle(String bundle) {
			this.bundle = bundle;
		}

		public boolean isVerifyHostname() {
			return this.verifyHostname;
		}

		public void setVerifyHostname(boolean verifyHostname) {
			this.verifyHostname = verifyHostname;
		}

	}

}
