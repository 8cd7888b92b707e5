package dev.exactlyonce.nats;

import java.io.IOException;
import java.security.NoSuchAlgorithmException;

import javax.net.ssl.SSLContext;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Opens the NATS connection described by {@code exactlyonce.nats.*}. Reconnects forever once
 * connected; the first connection must succeed or start-up fails. Credentials never appear in
 * messages, nor in the causes they carry (see {@link CredentialRedactor}).
 */
public class NatsConnectionFactory {

	private final NatsConnectionSettings settings;

	private final SSLContext sslContext;

	private final NatsReaderRecovery readerRecovery;

	/**
	 * Creates the factory of connections whose reader is restarted when it stops on a message it
	 * cannot decode.
	 * @param settings the connection settings
	 * @param sslContext the TLS context from an SSL bundle, or {@code null}
	 * @param readerRecovery the recovery, or {@code null} for none
	 */
	public NatsConnectionFactory(NatsConnectionSettings settings, SSLContext sslContext,
			NatsReaderRecovery readerRecovery) {
		this.settings = settings;
		this.sslContext = sslContext;
		this.readerRecovery = readerRecovery;
	}

	/**
	 * Connects.
	 * @return the open connection
	 * @throws ExactlyOnceConfigurationException when no server can be reached or the settings are invalid
	 */
	public Connection connect() {
		try {
			Connection connection = Nats.connect(options());
			if (this.readerRecovery != null) {
				this.readerRecovery.watch(connection);
			}
			return connection;
		}
		catch (IOException | RuntimeException ex) {
			CredentialRedactor redactor = new CredentialRedactor(this.settings);
			throw new ExactlyOnceConfigurationException("Could not connect to NATS at "
					+ redactor.redact(this.settings.servers().toString()) + " (exactlyonce.nats.servers): "
					+ redactor.redact(innermostMessage(ex)),
					"Start nats-server with JetStream (nats-server -js -sd <store dir>) where exactlyonce.nats.servers "
							+ "points, or correct that property; if the server refused the login, check "
							+ "exactlyonce.nats.username and password, token, credentials-file or nkey-file; if it "
							+ "requires TLS, set exactlyonce.nats.tls.bundle (or tls.enabled for the JVM's trust store).",
					redactor.redact(ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while connecting to NATS", ex);
		}
	}

	private static String innermostMessage(Throwable failure) {
		Throwable innermost = failure;
		while (innermost.getCause() != null && innermost.getCause() != innermost) {
			innermost = innermost.getCause();
		}
		return (innermost.getMessage() != null) ? innermost.getMessage() : innermost.getClass().getName();
	}

	/**
	 * The client options built from the settings.
	 * @return the options
	 */
	public Options options() {
		Options.Builder builder = new Options.Builder()
			.servers(this.settings.servers().toArray(String[]::new))
			.connectionName(this.settings.connectionName())
			.connectionTimeout(this.settings.connectionTimeout())
			.reconnectWait(this.settings.reconnectWait())
			.maxReconnects(-1)
			.errorListener(new PermissionViolations());
		if (this.settings.username() != null) {
			builder.userInfo(this.settings.username(), this.settings.password());
		}
		if (this.settings.token() != null) {
			builder.token(this.settings.token().toCharArray());
		}
		if (this.settings.credentialsFile() != null && this.settings.nkeyFile() != null) {
			throw new ExactlyOnceConfigurationException(
					"Both exactlyonce.nats.credentials-file and exactlyonce.nats.nkey-file are set",
					"Keep one: credentials-file for a .creds file (JWT and seed), nkey-file for a seed alone.");
		}
		if (this.settings.credentialsFile() != null) {
			builder.authHandler(Nats.credentials(this.settings.credentialsFile().toString()));
		}
		if (this.settings.nkeyFile() != null) {
			builder.authHandler(Nats.credentials(null, this.settings.nkeyFile().toString()));
		}
		applyTls(builder);
		if (this.readerRecovery != null) {
			this.readerRecovery.apply(builder);
		}
		return builder.build();
	}

	private void applyTls(Options.Builder builder) {
		if (this.sslContext != null) {
			builder.sslContext(this.sslContext);
		}
		else if (this.settings.defaultTls()) {
			try {
				builder.sslContext(SSLContext.getDefault());
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException("No default TLS context for exactlyonce.nats.tls.enabled", ex);
			}
		}
	}

}
