package dev.exactlyonce.it;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.TestInstances;

/**
 * One {@code redis-server} for a test class (register it as a static extension) and the properties
 * that make its instances use it as their store.
 */
final class RedisStore implements BeforeAllCallback, AfterAllCallback {

	private RedisServerProcess redis;

	@Override
	public void beforeAll(ExtensionContext context) {
		this.redis = new RedisServerProcess().start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.redis.close();
	}

	/**
	 * Makes the instances keep their records in this server.
	 * @param instances the test's instances
	 */
	void useFor(TestInstances instances) {
		instances.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.port", this.redis.port())
			.with("spring.data.redis.timeout", "1s");
	}

}
