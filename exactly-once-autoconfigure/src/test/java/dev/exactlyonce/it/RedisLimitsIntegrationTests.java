package dev.exactlyonce.it;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.testapp.TestInstances;

/**
 * Limits with the Redis store (one server for the class): the same state on NATS, a dead holder's
 * claim read from Redis.
 */
class RedisLimitsIntegrationTests extends LimitsIntegrationTests {

	@RegisterExtension
	static final RedisStore redis = new RedisStore();

	@Override
	protected void configureStore(TestInstances instances) {
		redis.useFor(instances);
	}

}
