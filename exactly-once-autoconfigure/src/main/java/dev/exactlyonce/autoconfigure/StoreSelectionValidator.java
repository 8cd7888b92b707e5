package dev.exactlyonce.autoconfigure;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

import dev.exactlyonce.autoconfigure.StoreProperties.StoreType;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Fails start-up when no {@link IdempotencyStore} could be configured for
 * {@code exactlyonce.store.type}, saying which dependency, property or bean is missing.
 */
class StoreSelectionValidator implements InitializingBean {

	private final ListableBeanFactory beanFactory;

	private final StoreType type;

	private final ClassLoader classLoader;

	StoreSelectionValidator(ListableBeanFactory beanFactory, StoreType type, ClassLoader classLoader) {
		this.beanFactory = beanFactory;
		this.type = type;
		this.classLoader = classLoader;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.beanFactory.getBeanNamesForType(IdempotencyStore.class).length == 0) {
			throw missingStore();
		}
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
		String prefix = "exactlyonce.store.type=" + this.type.name().toLowerCase().replace('_', '-') + " but ";
		if (!ClassUtils.isPresent(requiredClass, this.classLoader)) {
			return new ExactlyOnceConfigurationException(prefix + classProblem, classAction);
		}
		return new ExactlyOnceConfigurationException(prefix + beanProblem, beanAction);
	}

}
