package dev.exactlyonce.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TestInstances;

/**
 * Durable waits on the Redis store (one server for the class): a WAITING record's {@code PEXPIRE}
 * is {@code completed-ttl} plus the rest of its wait.
 */
class RedisDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	private static RedisServerProcess redis;

	@BeforeAll
	static void startRedis() {
		redis = new RedisServerProcess().start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Override
	protected void configureStore(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", redis.host())
			.with("spring.data.redis.port", redis.port())
			.with("spring.data.redis.timeout", "1s");
	}

}
