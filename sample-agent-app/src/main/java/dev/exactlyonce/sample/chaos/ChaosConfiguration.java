package dev.exactlyonce.sample.chaos;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.sample.SampleProperties;

/**
 * Registers the {@link ChaosObserver} only when {@code sample.chaos.halt-at} is set.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("sample.chaos.halt-at")
class ChaosConfiguration {

	@Bean
	ChaosObserver chaosObserver(ChaosProperties chaos, SampleProperties sample) {
		return new ChaosObserver(chaos, sample);
	}

}
