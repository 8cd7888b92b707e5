package dev.exactlyonce.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

/**
 * The in-memory store, only when named explicitly; warns that it protects nothing across restarts.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(StoreTypeCondition.class)
class MemoryStoreConfiguration {

	private static final Log logger = LogFactory.getLog(MemoryStoreConfiguration.class);

	@Bean
	InMemoryIdempotencyStore inMemoryIdempotencyStore(ClaimRules rules) {
		logger.warn("exactlyonce.store.type=memory: idempotency records live in this JVM only and are lost on "
				+ "restart, so a redelivery after a crash can run a completed task again. Use nats-kv, redis or "
				+ "firestore outside tests.");
		return new InMemoryIdempotencyStore(rules);
	}

}
