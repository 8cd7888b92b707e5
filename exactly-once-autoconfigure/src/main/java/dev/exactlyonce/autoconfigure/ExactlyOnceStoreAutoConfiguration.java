package dev.exactlyonce.autoconfigure;

import java.time.Clock;

import io.nats.client.Connection;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Auto-configures the {@link IdempotencyStore} named by {@code exactlyonce.store.type}. Backs off
 * when the application defines its own store; fails start-up, naming what to add, when the named
 * store cannot be created.
 */
@AutoConfiguration(after = ExactlyOnceNatsAutoConfiguration.class,
		afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
				"com.google.cloud.spring.autoconfigure.firestore.GcpFirestoreAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration" })
@ConditionalOnClass(Connection.class)
@Import(ExactlyOnceStoreAutoConfiguration.StoreConfigurationImportSelector.class)
public final class ExactlyOnceStoreAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ClaimRules exactlyOnceClaimRules(ExactlyOnceProperties properties) {
		return new ClaimRules(Clock.systemUTC(), properties.getStore().getCompletedTtl());
	}

	@Bean
	StoreSelectionValidator exactlyOnceStoreSelectionValidator(ConfigurableListableBeanFactory beanFactory,
			ExactlyOnceProperties properties) {
		return new StoreSelectionValidator(beanFactory, properties.getStore().getType(),
				beanFactory.getBeanClassLoader());
	}

	/** Imports every store configuration; each one's condition keeps only the named store. */
	static class StoreConfigurationImportSelector implements ImportSelector {

		@Override
		public String[] selectImports(AnnotationMetadata importingClassMetadata) {
			return StoreConfigurations.configurationClassNames();
		}

	}

}
