package dev.exactlyonce.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;

import dev.exactlyonce.autoconfigure.StoreProperties.StoreType;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * An application processed ahead of time keeps the store chosen at build time: run with another
 * {@code exactlyonce.store.type}, it fails start-up instead of silently using the built one.
 */
class StoreSelectionValidatorTests {

	@Test
	void aStoreTypeOtherThanTheOneBuiltAheadOfTimeFailsStartupNamingBoth() {
		DefaultListableBeanFactory beanFactory = withStore();
		beanFactory.registerBeanDefinition("memoryStoreConfiguration",
				new RootBeanDefinition(MemoryStoreConfiguration.class));

		assertThatExceptionOfType(ExactlyOnceConfigurationException.class)
			.isThrownBy(() -> validator(beanFactory, StoreType.REDIS).afterPropertiesSet())
			.withMessageContaining("exactlyonce.store.type=redis but the application was processed ahead of time")
			.withMessageContaining("exactlyonce.store.type=memory")
			.satisfies((ex) -> assertThat(ex.getAction()).contains("Run process-aot with the store type"));
		assertThatNoException().isThrownBy(() -> validator(beanFactory, StoreType.MEMORY).afterPropertiesSet());
	}

	@Test
	void anApplicationsOwnStoreIsNeverComparedWithTheType() {
		assertThatNoException().isThrownBy(() -> validator(withStore(), StoreType.REDIS).afterPropertiesSet());
	}

	private static DefaultListableBeanFactory withStore() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("store",
				new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(), Duration.ofHours(72))));
		return beanFactory;
	}

	private static StoreSelectionValidator validator(DefaultListableBeanFactory beanFactory, StoreType type) {
		return new StoreSelectionValidator(beanFactory, type, StoreSelectionValidatorTests.class.getClassLoader());
	}

}
