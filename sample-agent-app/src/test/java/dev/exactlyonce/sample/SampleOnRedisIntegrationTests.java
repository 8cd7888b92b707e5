package dev.exactlyonce.sample;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;

/**
 * The sample with {@code --spring.profiles.active=redis}, against its own redis-server.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@ActiveProfiles("redis")
class SampleOnRedisIntegrationTests extends SampleStoreProfileSupport {

	private static final NatsServerProcess nats = new NatsServerProcess().start();

	private static final RedisServerProcess redis = new RedisServerProcess().start();

	SampleOnRedisIntegrationTests() {
		super("redis");
	}

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("exactlyonce.nats.servers", nats::url);
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void stopServers() {
		redis.close();
		nats.close();
	}

}
