package dev.exactlyonce.autoconfigure;

import java.util.Arrays;
import java.util.Optional;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

import dev.exactlyonce.autoconfigure.StoreProperties.StoreType;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Fails start-up when no {@link IdempotencyStore} could be configured for
 * {@code exactlyonce.store.type}, saying which dependency, property or bean is missing, and when an
 * application processed ahead of time (whose store was chosen at build time) runs with another type.
 */
class StoreSelectionValidator implements InitializingBean {

	private final ConfigurableListableBeanFactory beanFactory;

	private final StoreType type;

	private final ClassLoader classLoader;

	StoreSelectionValidator(ConfigurableListableBeanFactory beanFactory, StoreType type, ClassLoader classLoader) {
		this.beanFactory = beanFactory;
		this.type = type;
		this.classLoader = classLoader;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.beanFactory.getBeanNamesForType(IdempotencyStore.class).length == 0) {
			throw missingStore();
		}
		Optional<StoreType> built = configuredType();
		if (built.isPresent() && built.get() != this.type) {
			throw new ExactlyOnceConfigurationException("exactlyonce.store.type=" + text(this.type)
					+ " but the application was processed ahead of time (spring-boot:process-aot) with "
					+ "exactlyonce.store.type=" + text(built.get()) + ", and AOT fixes the store when it runs",
					"Run process-aot with the store type the application runs with, or run it without "
							+ "-Dspring.aot.enabled=true");
		}
	}

	/** The store whose configuration class is a bean here (none when the application defines its own store). */
	private Optional<StoreType> configuredType() {
		return Arrays.stream(this.beanFactory.getBeanDefinitionNames())
			.map((name) -> this.beanFactory.getBeanDefinition(name).getBeanClassName())
			.filter((className) -> className != null)
			.flatMap((className) -> Arrays.stream(StoreConfigurations.configurationClassNames())
				.filter(className::startsWith))
			.map(StoreConfigurations::getType)
			.findFirst();
	}

	private static String text(StoreType type) {
		return type.name().toLowerCase().replace('_', '-');
	}

	private ExactlyOnceConfigurationException missingStore() {
		return switch (this.type) {
			case REDIS -> missing("org.springframework.data.redis.connection.RedisConnectionFactory",
					"Spring Data Redis is not on the classpath",
					"Add the dependency org.springframework.boot:spring-boot-starter-data-redis and configure "
							+ "spring.data.redis.*, or choose another exactlyonce.store.type",
					"there is no single RedisConnectionFactory bean",
					"Configure Redis with spring.data.redis.* (host and port, url, sentinel or cluster) and keep "
							+ "DataRedisAutoConfiguration enabled, or define one RedisConnectionFactory bean "
							+ "(mark one @Primary when there are several)");
			case FIRESTORE -> missing("com.google.cloud.firestore.Firestore",
					"the Google Cloud Firestore client is not on the classpath",
					"Add the dependencies com.google.cloud:spring-cloud-gcp-starter and "
							+ "com.google.cloud:google-cloud-firestore (versions from the "
							+ "com.google.cloud:spring-cloud-gcp-dependencies BOM), or choose another exactlyonce.store.type",
					"there is no single Firestore bean",
					"Set spring.cloud.gcp.firestore.project-id (and credentials) so that Spring Cloud GCP creates "
							+ "one, or spring.cloud.gcp.firestore.emulator.enabled=true with "
							+ "spring.cloud.gcp.firestore.host-port for the emulator, or define one Firestore bean");
			case JDBC -> missing("org.springframework.jdbc.core.JdbcTemplate", "Spring JDBC is not on the classpath",
					"Add the dependency org.springframework.boot:spring-boot-starter-jdbc and a JDBC driver, or choose "
							+ "another exactlyonce.store.type",
					"there is no single DataSource bean",
					"Configure the database with spring.datasource.url (and username, password) so that "
							+ "DataSourceAutoConfiguration creates one, or define one DataSource bean (mark one @Primary "
							+ "when there are several)");
			case NATS_KV -> new ExactlyOnceConfigurationException(
					"exactlyonce.store.type=nats-kv but there is no NATS Connection bean",
					"Keep ExactlyOnceNatsAutoConfiguration enabled or define an io.nats.client.Connection bean");
			case MEMORY -> new ExactlyOnceConfigurationException(
					"exactlyonce.store.type=memory but no in-memory store was created",
					"Define an IdempotencyStore bean or remove the exclusion of ExactlyOnceStoreAutoConfiguration");
		};
	}

	private ExactlyOnceConfigurationException missing(String requiredClass, String classProblem, String classAction,
			String beanProblem, String beanAction) {
		String prefix = "exactlyonce.store.type=" + text(this.type) + " but ";
		if (!ClassUtils.isPresent(requiredClass, this.classLoader)) {
			return new ExactlyOnceConfigurationException(prefix + classProblem, classAction);
		}
		return new ExactlyOnceConfigurationException(prefix + beanProblem, beanAction);
	}

}
