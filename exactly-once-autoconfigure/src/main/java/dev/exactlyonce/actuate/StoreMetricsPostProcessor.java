package dev.exactlyonce.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;

import dev.exactlyonce.store.IdempotencyStore;

/**
 * Wraps every {@link IdempotencyStore} bean in a {@link TimedIdempotencyStore}. The meter registry
 * is looked up when the first store is created, not when this post-processor is.
 */
public class StoreMetricsPostProcessor implements BeanPostProcessor {

	private final BeanFactory beanFactory;

	private volatile MeterRegistry registry;

	/**
	 * Creates the post-processor.
	 * @param beanFactory the bean factory holding the meter registry
	 */
	public StoreMetricsPostProcessor(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof IdempotencyStore store && !(bean instanceof TimedIdempotencyStore)) {
			return TimedIdempotencyStore.of(store, registry());
		}
		return bean;
	}

	private MeterRegistry registry() {
		MeterRegistry current = this.registry;
		if (current == null) {
			current = this.beanFactory.getBean(MeterRegistry.class);
			this.registry = current;
		}
		return current;
	}

}
