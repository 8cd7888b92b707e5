package dev.exactlyonce.nats;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.util.List;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

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

	private final List<NatsOptionsCustomizer> customizers;

	/**
	 * Creates the factory of connections whose reader is restarted when it stops on a message it
	 * cannot decode.
	 * @param settings the connection settings
	 * @param sslContext the TLS context from an SSL bundle, or {@code null}
	 * @param readerRecovery the recovery, or {@code null} for none
	 * @param customizers the application's option customizers, in order
	 */
	public NatsConnectionFactory(NatsConnectionSettings settings, SSLContext sslContext,
			NatsReaderRecovery readerRecovery, List<NatsOptionsCustomizer> customizers) {
		this.settings = settings;
		this.customizers = List.copyOf(customizers);
		this.sslContext = sslContext;
		this.readerRecovery = readerRecovery;
	}

	/**
	 * Connects.
	 * @return the open connection
	 * @throws ExactlyOnceConfigurationException when no server can be reached or the settings are invalid
	 */
	public Connection connect() {
		Options options = options();
		try {
			Connection connection = Nats.connect(options);
			if (this.readerRecovery != null) {
				this.readerRecovery.watch(connection);
			}
			return connection;
		}
		catch (IOException | RuntimeException ex) {
			CredentialRedactor redactor = new CredentialRedactor(this.settings);
			String tlsCause = tlsCause(options);
			if (tlsCause != null) {
				throw new ExactlyOnceConfigurationException("Could not connect to NATS at "
						+ redactor.redact(this.settings.servers().toString()) + " (" + this.settings.serversOrigin() + "): the TLS "
						+ "handshake failed: " + redactor.redact(tlsCause),
						"If the certificate does not name the host dialled, connect by a name it carries, or set "
								+ "exactlyonce.nats.tls.verify-hostname=false only for a server reached by an address its "
								+ "certificate does not list; if it is not trusted, put its CA in the SSL bundle "
								+ "exactlyonce.nats.tls.bundle names; if the server wants a client certificate, add a "
								+ "keystore to that bundle.",
						redactor.redact(ex));
			}
			throw new ExactlyOnceConfigurationException("Could not connect to NATS at "
					+ redactor.redact(this.settings.servers().toString()) + " (" + this.settings.serversOrigin() + "): "
					+ redactor.redact(innermostMessage(ex)),
					"Start nats-server with JetStream (nats-server -js -sd <store dir>) where "
							+ this.settings.serversOrigin() + " points, or correct it; if the server refused the login, check "
							+ "exactlyonce.nats.username and password, token, credentials-file or nkey-file; if it "
							+ "requires TLS, set exactlyonce.nats.tls.bundle (or tls.enabled for the JVM's trust store).",
					redactor.redact(ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while connecting to NATS", ex);
		}
	}

	/** The message of the TLS failure the client reported while connecting, or {@code null}. */
	private static String tlsCause(Options options) {
		if (!(options.getErrorListener() instanceof PermissionViolations listener)) {
			return null;
		}
		return listener.lastException().map(NatsConnectionFactory::tlsMessage).orElse(null);
	}

	/** The message of the outermost TLS or certificate failure in the chain (it carries the most). */
	private static String tlsMessage(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof SSLException || cause instanceof CertificateException) {
				return (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getName();
			}
		}
		return null;
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
			.inboxPrefix(this.settings.inboxPrefix())
			.maxReconnects(-1);
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
		this.customizers.forEach((customizer) -> customizer.customize(builder));
		builder.errorListener(new PermissionViolations());
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
			builder.sslContext(defaultTlsContext());
		}
		else {
			return;
		}
		if (this.settings.verifyHostname()) {
			// the name written in the server list is the name the certificate must carry: by default (and
			// with noResolveHostnames, which resolves to the first address) jnats swaps the name for an
			// address before it dials, and the TLS socket is then made for the address, so a certificate for
			// the name is refused and one for the address accepted. HappyEyeballs keeps the name in the URL
			// and resolves only to open the TCP connection, so the TLS socket is made for the name.
			// Members a server announces in INFO are not dialled: the configured list alone says which
			// hosts the client may trust
			builder.hostnameResolveMode(Options.HostnameResolveMode.HappyEyeballs).ignoreDiscoveredServers();
		}
	}

	/** The JVM's default trust store, in a context that checks the server's host name unless told not to. */
	private SSLContext defaultTlsContext() {
		try {
			TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			trust.init((KeyStore) null);
			return NatsTlsContext.create("TLS", null, trust.getTrustManagers(), this.settings.verifyHostname());
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("No default TLS context for exactlyonce.nats.tls.enabled", ex);
		}
	}

}
