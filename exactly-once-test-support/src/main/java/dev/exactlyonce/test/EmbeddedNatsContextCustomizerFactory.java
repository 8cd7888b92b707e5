package dev.exactlyonce.test;

import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the {@code nats-server} of a test class annotated with {@link EmbeddedNats} when its
 * application context is created, and stops it after that context closed.
 */
public class EmbeddedNatsContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return AnnotatedElementUtils.hasAnnotation(testClass, EmbeddedNats.class) ? new EmbeddedNatsCustomizer() : null;
	}

	/** One server per application context; contexts of annotated tests are otherwise alike. */
	private static final class EmbeddedNatsCustomizer implements ContextCustomizer {

		private static final String BEAN_NAME = "exactlyOnceEmbeddedNats";

		@Override
		public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
			NatsServerProcess server = new NatsServerProcess().start();
			context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("embeddedNats",
					Map.of("exactlyonce.nats.servers", server.url())));
			DefaultListableBeanFactory beans = (DefaultListableBeanFactory) context.getBeanFactory();
			beans.registerSingleton(BEAN_NAME, server);
			// registered before any other bean: destroyed after all of them, the NATS connection included
			beans.registerDisposableBean(BEAN_NAME, server::close);
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof EmbeddedNatsCustomizer;
		}

		@Override
		public int hashCode() {
			return EmbeddedNatsCustomizer.class.hashCode();
		}

	}

}
