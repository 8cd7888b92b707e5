package dev.exactlyonce.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.redis.RedisIdempotencyStore;

/**
 * The Redis store, only when named, on the application's {@link RedisConnectionFactory}
 * (standalone, Sentinel or Cluster as Spring Data Redis configures it).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@Conditional(StoreTypeCondition.class)
class RedisStoreConfiguration {

	@Bean
	RedisIdempotencyStore redisIdempotencyStore(RedisConnectionFactory connectionFactory,
			ExactlyOnceProperties properties) {
		ExactlyOnceProperties.Store store = properties.getStore();
		return new RedisIdempotencyStore(connectionFactory, store.getRedis().getKeyPrefix(), store.getCompletedTtl());
	}

}
