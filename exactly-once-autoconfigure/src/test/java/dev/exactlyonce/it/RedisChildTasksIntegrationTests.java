package dev.exactlyonce.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TestInstances;

/**
 * Child tasks on the Redis store (one server for the class): records and journals in Redis, the
 * children's results and notices in the waits bucket on NATS.
 */
class RedisChildTasksIntegrationTests extends AbstractChildTasksIntegrationTests {

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
