package dev.exactlyonce.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TestInstances;

/**
 * Limits with the Redis store (one server for the class): the same state on NATS, a dead holder's
 * claim read from Redis.
 */
class RedisLimitsIntegrationTests extends LimitsIntegrationTests {

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
