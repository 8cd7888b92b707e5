package dev.exactlyonce.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.spring.autoconfigure.core.GcpContextAutoConfiguration;
import com.google.cloud.spring.autoconfigure.firestore.GcpFirestoreAutoConfiguration;
import com.google.cloud.spring.autoconfigure.firestore.GcpFirestoreEmulatorAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.firestore.FirestoreIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcDialect;
import dev.exactlyonce.store.jdbc.JdbcIdempotencyStore;
import dev.exactlyonce.store.jdbc.JdbcRecordTable;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;
import dev.exactlyonce.test.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Store selection by {@code exactlyonce.store.type} without any server: which store each branch
 * creates, that the application's own store wins, and the start-up errors when the named store's
 * dependency or client bean is missing. Nothing here connects anywhere (Redis and the Firestore
 * emulator point at a port nobody listens on); the NATS KV branch needs a server and lives in
 * {@code StoreSelectionIntegrationTests}.
 */
class ExactlyOnceStoreAutoConfigurationTests {

	private static final AutoConfigurations REDIS = AutoConfigurations.of(DataRedisAutoConfiguration.class);

	private static final AutoConfigurations FIRESTORE = AutoConfigurations.of(GcpContextAutoConfiguration.class,
			GcpFirestoreEmulatorAutoConfiguration.class, GcpFirestoreAutoConfiguration.class);

	private static final AutoConfigurations JDBC = AutoConfigurations.of(DataSourceAutoConfiguration.class);

	private final int unusedPort = FreePorts.next();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceStoreAutoConfiguration.class))
		.withUserConfiguration(PropertiesConfiguration.class, NoGoogleCredentialsConfiguration.class)
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + this.unusedPort,
				"spring.cloud.gcp.firestore.project-id=exactly-once-test",
				"spring.cloud.gcp.firestore.emulator.enabled=true",
				"spring.cloud.gcp.firestore.host-port=127.0.0.1:" + this.unusedPort);

	@Test
	void memoryStoreWhenNamed() {
		this.runner.withPropertyValues("exactlyonce.store.type=memory")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.getBean(IdempotencyStore.class)
				.isInstanceOf(InMemoryIdempotencyStore.class));
	}

	@Test
	void redisStoreWhenNamedUsesTheApplicationsConnectionFactory() {
		this.runner.withConfiguration(REDIS)
			.withPropertyValues("exactlyonce.store.type=redis", "spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.getBean(IdempotencyStore.class)
				.isInstanceOf(RedisIdempotencyStore.class));
	}

	@Test
	void firestoreStoreWhenNamedUsesTheApplicationsFirestore() {
		this.runner.withConfiguration(FIRESTORE)
			.withPropertyValues("exactlyonce.store.type=firestore")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.getBean(IdempotencyStore.class)
				.isInstanceOf(FirestoreIdempotencyStore.class));
	}

	@Test
	void redisAndFirestoreOnTheClasspathDoNotSelectTheirStores() {
		this.runner.withConfiguration(REDIS)
			.withConfiguration(FIRESTORE)
			.withPropertyValues("exactlyonce.store.type=memory")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.doesNotHaveBean(RedisIdempotencyStore.class)
				.doesNotHaveBean(FirestoreIdempotencyStore.class));
	}

	@Test
	void applicationsOwnStoreWins() {
		this.runner.withConfiguration(REDIS)
			.withUserConfiguration(OwnStoreConfiguration.class)
			.withPropertyValues("exactlyonce.store.type=redis")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyStore.class)
				.hasBean("ownStore")
				.doesNotHaveBean(RedisIdempotencyStore.class));
	}

	@Test
	void applicationsOwnStoreNeedsNoStoreDependency() {
		this.runner.withUserConfiguration(OwnStoreConfiguration.class)
			.withClassLoader(new FilteredClassLoader("com.google.cloud.firestore"))
			.withPropertyValues("exactlyonce.store.type=firestore")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(IdempotencyStore.class));
	}

	@Test
	void redisCommandTimeoutLeftAtLettucesDefaultAboveTheLeaseFailsNamingBothProperties() {
		this.runner.withConfiguration(REDIS)
			.withPropertyValues("exactlyonce.store.type=redis", "exactlyonce.store.lease=6s")
			.run((context) -> assertStartupFailure(context,
					"spring.data.redis.timeout (the Redis command timeout, 60s when unset) is 1m but "
							+ "exactlyonce.store.lease is 6s",
					"Set spring.data.redis.timeout below exactlyonce.store.lease"));
	}

	@Test
	void redisCommandTimeoutBelowTheLeaseStarts() {
		this.runner.withConfiguration(REDIS)
			.withPropertyValues("exactlyonce.store.type=redis", "exactlyonce.store.lease=6s",
					"spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context).hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void firestoreTimeoutNotBelowTheLeaseFailsNamingBothProperties() {
		this.runner.withConfiguration(FIRESTORE)
			.withPropertyValues("exactlyonce.store.type=firestore", "exactlyonce.store.lease=10s")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.firestore.timeout is 10s but exactlyonce.store.lease is 10s",
					"Set exactlyonce.store.firestore.timeout below exactlyonce.store.lease"));
	}

	@Test
	void jdbcStoreWhenNamedUsesTheApplicationsDataSourceAndCreatesItsTableInAnEmbeddedDatabase() {
		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=jdbc", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID())
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyStore.class)
					.getBean(IdempotencyStore.class)
					.isInstanceOf(JdbcIdempotencyStore.class);
				assertThat(context.getBean(IdempotencyStore.class).tryClaim("key", "worker", Duration.ofMinutes(1)))
					.isInstanceOf(ClaimResult.Acquired.class);
			});
	}

	@Test
	void jdbcStoreUsesTheConfiguredTableName() {
		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=jdbc", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID(),
					"exactlyonce.store.jdbc.table-name=agent_claims")
			.run((context) -> {
				context.getBean(IdempotencyStore.class).tryClaim("key", "worker", Duration.ofMinutes(1));
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT COUNT(*) FROM agent_claims", Integer.class)).isOne();
			});
	}

	@Test
	void jdbcSchemaInitializationNeverLeavesAMissingTableAStartupFailureNamingTheDdl() {
		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=jdbc", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID(),
					"exactlyonce.store.jdbc.initialize-schema=never")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=jdbc but the table 'exactlyonce_record' is not readable",
					"schema-h2.sql"));
	}

	@Test
	void aJdbcTableCreatedBeforeTheStepTableIsAStartupFailureNamingTheStepTableAndTheDdl() throws Exception {
		String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		DriverManagerDataSource earlier = new DriverManagerDataSource(url, "sa", "");
		new JdbcRecordTable(JdbcRecordTable.DEFAULT_NAME, JdbcDialect.of(earlier)).createIfMissing(earlier);
		new JdbcTemplate(earlier).execute("DROP TABLE exactlyonce_record_step");

		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=jdbc", "spring.datasource.url=" + url,
					"exactlyonce.store.jdbc.initialize-schema=never")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=jdbc but the step table 'exactlyonce_record_step' (one row per durable step) "
							+ "is not readable",
					"schema-h2.sql"));
	}

	@Test
	void jdbcTableNameThatIsNotAnIdentifierFailsNamingTheProperty() {
		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=jdbc", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID(),
					"exactlyonce.store.jdbc.table-name=records; DROP TABLE users")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.jdbc.table-name 'records; DROP TABLE users' is not a plain SQL identifier",
					"exactlyonce_record"));
	}

	@Test
	void aDataSourceOnTheClasspathDoesNotSelectTheJdbcStore() {
		this.runner.withConfiguration(JDBC)
			.withPropertyValues("exactlyonce.store.type=memory", "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID())
			.run((context) -> assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class)
				.getBean(IdempotencyStore.class)
				.isInstanceOf(InMemoryIdempotencyStore.class));
	}

	@Test
	void jdbcWithoutDataSourceFailsNamingTheFix() {
		this.runner.withPropertyValues("exactlyonce.store.type=jdbc")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=jdbc but there is no single DataSource bean", "spring.datasource.url"));
	}

	@Test
	void jdbcWithoutSpringJdbcFailsNamingTheDependency() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.jdbc"))
			.withPropertyValues("exactlyonce.store.type=jdbc")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=jdbc but Spring JDBC is not on the classpath",
					"org.springframework.boot:spring-boot-starter-jdbc"));
	}

	@Test
	void redisWithoutConnectionFactoryFailsNamingTheFix() {
		this.runner.withPropertyValues("exactlyonce.store.type=redis")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=redis but there is no single RedisConnectionFactory bean",
					"spring.data.redis.*"));
	}

	@Test
	void redisWithoutSpringDataRedisFailsNamingTheDependency() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.withPropertyValues("exactlyonce.store.type=redis")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=redis but Spring Data Redis is not on the classpath",
					"org.springframework.boot:spring-boot-starter-data-redis"));
	}

	@Test
	void firestoreWithoutFirestoreBeanFailsNamingTheFix() {
		this.runner.withPropertyValues("exactlyonce.store.type=firestore")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=firestore but there is no single Firestore bean",
					"spring.cloud.gcp.firestore.project-id"));
	}

	@Test
	void firestoreWithoutTheClientFailsNamingTheDependencies() {
		this.runner.withClassLoader(new FilteredClassLoader("com.google.cloud.firestore"))
			.withPropertyValues("exactlyonce.store.type=firestore")
			.run((context) -> assertStartupFailure(context,
					"exactlyonce.store.type=firestore but the Google Cloud Firestore client is not on the classpath",
					"com.google.cloud:google-cloud-firestore"));
	}

	private static void assertStartupFailure(AssertableApplicationContext context, String problem, String fix) {
		assertThat(context).getFailure()
			.rootCause()
			.isInstanceOfSatisfying(ExactlyOnceConfigurationException.class, (ex) -> {
				assertThat(ex.getMessage()).startsWith(problem);
				assertThat(ex.getAction()).contains(fix);
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(ExactlyOnceProperties.class)
	static class PropertiesConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class NoGoogleCredentialsConfiguration {

		@Bean
		CredentialsProvider googleCredentials() {
			return NoCredentialsProvider.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnStoreConfiguration {

		@Bean
		IdempotencyStore ownStore() {
			return new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(), Duration.ofHours(1)));
		}

	}

}
