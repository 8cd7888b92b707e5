package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;

/**
 * The Redis store, only when named, on the application's {@link RedisConnectionFactory}
 * (standalone, Sentinel or Cluster as Spring Data Redis configures it). With Lettuce, its command
 * timeout must be below the lease.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@Conditional(StoreTypeCondition.class)
class RedisStoreConfiguration {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisStoreConfiguration.class.getClassLoader());

	@Bean
	RedisIdempotencyStore redisIdempotencyStore(RedisConnectionFactory connectionFactory,
			ExactlyOnceProperties properties) {
		StoreProperties store = properties.getStore();
		if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
			Duration commandTimeout = lettuce.getClientConfiguration().getCommandTimeout();
			StoreCallTimeouts.requireBelowLease("spring.data.redis.timeout (the Redis command timeout, 60s when unset)",
					commandTimeout, store.getLease(), "spring.data.redis.timeout");
		}
		return new RedisIdempotencyStore(connectionFactory, store.getRedis().getKeyPrefix(), store.getCompletedTtl());
	}

}
