package dev.exactlyonce.test;

import java.util.Arrays;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * Fails a test class annotated with {@link EmbeddedNats} that has no Spring application context: the
 * server would never start and the test would meet {@code null} fields instead of a reason.
 */
class EmbeddedNatsCheck implements BeforeAllCallback {

	@Override
	public void beforeAll(ExtensionContext context) {
		Class<?> testClass = context.getRequiredTestClass();
		boolean spring = AnnotatedElementUtils.findMergedRepeatableAnnotations(testClass, ExtendWith.class)
			.stream()
			.anyMatch((extendWith) -> Arrays.asList(extendWith.value()).contains(SpringExtension.class));
		if (!spring) {
			throw new IllegalStateException("@EmbeddedNats on " + testClass.getName() + " starts a nats-server for the "
					+ "test's Spring application context, but the test has none: annotate it with @SpringBootTest "
					+ "(or another Spring test annotation that brings the SpringExtension)");
		}
	}

}
