package dev.exactlyonce.it;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.testapp.TestInstances;

/**
 * Durable waits on the Redis store (one server for the class): a WAITING record's {@code PEXPIRE}
 * is {@code completed-ttl} plus the rest of its wait.
 */
class RedisDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	@RegisterExtension
	static final RedisStore redis = new RedisStore();

	@Override
	protected void configureStore(TestInstances instances) {
		redis.useFor(instances);
	}

}
