package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.spring.autoconfigure.core.GcpContextAutoConfiguration;
import com.google.cloud.spring.autoconfigure.firestore.GcpFirestoreAutoConfiguration;
import com.google.cloud.spring.autoconfigure.firestore.GcpFirestoreEmulatorAutoConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.firestore.FirestoreIdempotencyStore;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;
import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Store selection wired the way an application gets it, against real servers: the default stays
 * NATS KV with Redis and Firestore on the classpath, and the Redis and Firestore stores work on
 * the clients that Spring Boot and Spring Cloud GCP create from their own properties.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreSelectionIntegrationTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static NatsServerProcess nats;

	private static RedisServerProcess redis;

	private static FirestoreEmulatorProcess firestore;

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
					ExactlyOnceStoreAutoConfiguration.class, DataRedisAutoConfiguration.class,
					GcpContextAutoConfiguration.class, GcpFirestoreEmulatorAutoConfiguration.class,
					GcpFirestoreAutoConfiguration.class))
			.withUserConfiguration(NoGoogleCredentialsConfiguration.class)
			.withPropertyValues("exactlyonce.nats.servers=" + nats.url(), "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=2s",
					"spring.cloud.gcp.firestore.project-id=exactly-once-test",
					"spring.cloud.gcp.firestore.emulator.enabled=true",
					"spring.cloud.gcp.firestore.host-port=" + firestore.hostPort());
	}

	@BeforeAll
	static void startServers() {
		nats = new NatsServerProcess().start();
		redis = new RedisServerProcess().start();
		firestore = new FirestoreEmulatorProcess().start();
	}

	@AfterAll
	static void stopServers() {
		nats.close();
		redis.close();
		firestore.close();
	}

	@Test
	void defaultStoreStaysNatsKvWithRedisAndFirestoreConfigured() {
		runner().run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyStore.class)
				.hasSingleBean(StringRedisTemplate.class)
				.hasSingleBean(Firestore.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			assertThat(store).isInstanceOf(NatsKvIdempotencyStore.class);
			assertThat(store.tryClaim("worker:default", "worker-1", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
		});
	}

	@Test
	void redisStoreKeepsRecordsUnderTheConfiguredPrefix() {
		runner().withPropertyValues("exactlyonce.store.type=redis", "exactlyonce.store.redis.key-prefix=agents:idem:")
			.run((context) -> {
				IdempotencyStore store = context.getBean(IdempotencyStore.class);
				assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
				assertThat(store.tryClaim("worker:t-1", "worker-1", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
				StringRedisTemplate redisTemplate = context.getBean(StringRedisTemplate.class);
				assertThat(redisTemplate.hasKey("agents:idem:worker:t-1")).isTrue();
				assertThat(redisTemplate.getExpire("agents:idem:worker:t-1")).isGreaterThan(Duration.ofHours(71).toSeconds());
			});
	}

	@Test
	void firestoreStoreKeepsRecordsInTheConfiguredCollectionWithoutCredentialWarnings(CapturedOutput output) {
		runner().withPropertyValues("exactlyonce.store.type=firestore",
				"exactlyonce.store.firestore.collection=agent-idempotency")
			.run((context) -> {
				IdempotencyStore store = context.getBean(IdempotencyStore.class);
				assertThat(store).isInstanceOf(FirestoreIdempotencyStore.class);
				assertThat(store.tryClaim("worker:t-1", "worker-1", LEASE)).isInstanceOf(ClaimResult.Acquired.class);
				Firestore client = context.getBean(Firestore.class);
				assertThat(client.collection("agent-idempotency").get().get().getDocuments())
					.singleElement()
					.satisfies((document) -> {
						assertThat(document.getString("key")).isEqualTo("worker:t-1");
						assertThat(document.getTimestamp("expiresAt")).isNotNull();
					});
			});
		assertThat(output).doesNotContainIgnoringCase("credentials").doesNotContain("WARN");
	}

	@Configuration(proxyBeanMethods = false)
	static class NoGoogleCredentialsConfiguration {

		@Bean
		CredentialsProvider googleCredentials() {
			return NoCredentialsProvider.create();
		}

	}

}
