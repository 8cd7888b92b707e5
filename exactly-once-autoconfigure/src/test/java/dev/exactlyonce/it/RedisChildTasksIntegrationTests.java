package dev.exactlyonce.it;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.testapp.TestInstances;

/**
 * Child tasks on the Redis store (one server for the class): records and journals in Redis, the
 * children's results and notices in the waits bucket on NATS.
 */
class RedisChildTasksIntegrationTests extends AbstractChildTasksIntegrationTests {

	@RegisterExtension
	static final RedisStore redis = new RedisStore();

	@Override
	protected void configureStore(TestInstances instances) {
		redis.useFor(instances);
	}

}
