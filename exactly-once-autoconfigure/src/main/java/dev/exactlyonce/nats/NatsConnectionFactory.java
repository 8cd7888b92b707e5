package dev.exactlyonce.nats;

import java.io.IOException;
import java.security.NoSuchAlgorithmException;

import javax.net.ssl.SSLContext;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;

import dev.exactlyonce.autoconfigure.ExactlyOnceConfigurationException;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;

/**
 * Opens the NATS connection described by {@code exactlyonce.nats.*}. Reconnects forever once
 * connected; the first connection must succeed or start-up fails. Credentials never appear in
 * messages, nor in the causes they carry (see {@link CredentialRedactor}).
 */
public class NatsConnectionFactory {

	private final ExactlyOnceProperties.Nats properties;

	private final SSLContext sslContext;

	private final NatsReaderRecovery readerRecovery;

	/**
	 * Creates the factory of connections whose reader is restarted when it stops on a message it
	 * cannot decode.
	 * @param properties the connection properties
	 * @param sslContext the TLS context from an SSL bundle, or {@code null}
	 * @param readerRecovery the recovery, or {@code null} for none
	 */
	public NatsConnectionFactory(ExactlyOnceProperties.Nats properties, SSLContext sslContext,
			NatsReaderRecovery readerRecovery) {
		this.properties = properties;
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
			CredentialRedactor redactor = new CredentialRedactor(this.properties);
			throw new ExactlyOnceConfigurationException("Could not connect to NATS at "
					+ redactor.redact(this.properties.getServers().toString()) + " (exactlyonce.nats.servers): "
					+ redactor.redact(innermostMessage(ex)),
					"Start nats-server with JetStream (nats-server -js -sd <store dir>) where exactlyonce.nats.servers "
							+ "points, or correct that property; if the server refused the login, check "
							+ "exactlyonce.nats.username and password, token or credentials-file.",
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
	 * The client options built from the properties.
	 * @return the options
	 */
	public Options options() {
		Options.Builder builder = new Options.Builder()
			.servers(this.properties.getServers().toArray(String[]::new))
			.connectionName(this.properties.getConnectionName())
			.connectionTimeout(this.properties.getConnectionTimeout())
			.reconnectWait(this.properties.getReconnectWait())
			.maxReconnects(-1);
		if (this.properties.getUsername() != null) {
			builder.userInfo(this.properties.getUsername(), this.properties.getPassword());
		}
		if (this.properties.getToken() != null) {
			builder.token(this.properties.getToken().toCharArray());
		}
		if (this.properties.getCredentialsFile() != null) {
			builder.authHandler(Nats.credentials(this.properties.getCredentialsFile().toString()));
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
		else if (this.properties.getTls().isEnabled()) {
			try {
				builder.sslContext(SSLContext.getDefault());
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException("No default TLS context for exactlyonce.nats.tls.enabled", ex);
			}
		}
	}

}
