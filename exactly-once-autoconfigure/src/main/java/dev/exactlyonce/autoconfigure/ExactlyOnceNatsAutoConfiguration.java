package dev.exactlyonce.autoconfigure;

import java.security.GeneralSecurityException;

import javax.net.ssl.SSLContext;

import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.exactlyonce.nats.NatsConnectionFactory;
import dev.exactlyonce.nats.NatsOptionsCustomizer;
import dev.exactlyonce.nats.NatsReaderListener;
import dev.exactlyonce.nats.NatsReaderRecovery;
import dev.exactlyonce.nats.NatsServerCapabilities;
import dev.exactlyonce.nats.NatsTlsContext;

/**
 * Auto-configures the NATS {@link Connection} from {@code exactlyonce.nats.*}, its servers and
 * login from a {@link NatsConnectionDetails} bean when the application or a service connection
 * defines one; its reader is restarted when a message it cannot decode stops it
 * ({@link NatsReaderRecovery}). Backs off when the application defines its own connection (which it
 * then also closes itself). Fails start-up on a key under {@code exactlyonce.*} that binds to
 * nothing.
 */
@AutoConfiguration(afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnClass(Connection.class)
@EnableConfigurationProperties(ExactlyOnceProperties.class)
public final class ExactlyOnceNatsAutoConfiguration {

	@Bean
	static UnknownPropertiesCheck exactlyOnceUnknownPropertiesCheck(Environment environment) {
		return new UnknownPropertiesCheck(environment);
	}

	@Bean
	@ConditionalOnMissingBean(Connection.class)
	NatsReaderRecovery exactlyOnceNatsReaderRecovery(ObjectProvider<NatsReaderListener> listeners) {
		return new NatsReaderRecovery(() -> listeners.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean(NatsConnectionDetails.class)
	PropertiesNatsConnectionDetails natsConnectionDetails(ExactlyOnceProperties properties) {
		return new PropertiesNatsConnectionDetails(properties.getNats());
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	Connection natsConnection(ExactlyOnceProperties properties, NatsConnectionDetails connectionDetails,
			ObjectProvider<SslBundles> sslBundles, NatsReaderRecovery readerRecovery,
			ObjectProvider<NatsOptionsCustomizer> customizers) {
		NatsProperties nats = properties.getNats();
		SSLContext sslContext = null;
		if (nats.getTls().getBundle() != null) {
			sslContext = tlsContext(sslBundles.getObject().getBundle(nats.getTls().getBundle()), nats.getTls());
		}
		return new NatsConnectionFactory(nats.toConnectionSettings(connectionDetails), sslContext, readerRecovery,
				customizers.orderedStream().toList()).connect();
	}

	/** The bundle's key and trust material, in a context that checks the server's host name unless told not to. */
	private static SSLContext tlsContext(SslBundle bundle, NatsProperties.Tls tls) {
		try {
			return NatsTlsContext.create(bundle.getProtocol(), bundle.getManagers().getKeyManagers(),
					bundle.getManagers().getTrustManagers(), tls.isVerifyHostname());
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("SSL bundle '" + tls.getBundle() + "' (exactlyonce.nats.tls.bundle) "
					+ "cannot make a TLS context: " + ex.getMessage(), ex);
		}
	}

	@Bean
	@ConditionalOnMissingBean
	NatsServerCapabilities exactlyOnceNatsServerCapabilities(Connection connection) {
		return NatsServerCapabilities.detect(connection);
	}

}
