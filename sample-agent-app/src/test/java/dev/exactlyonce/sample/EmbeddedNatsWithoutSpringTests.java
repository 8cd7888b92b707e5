package dev.exactlyonce.sample;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import dev.exactlyonce.test.EmbeddedNats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * {@link EmbeddedNats} on a test without a Spring application context fails that test at once,
 * saying what is missing, instead of leaving its fields {@code null}.
 */
class EmbeddedNatsWithoutSpringTests {

	@Test
	void aTestWithoutSpringFailsSayingToAddSpringBootTest() {
		SummaryGeneratingListener listener = new SummaryGeneratingListener();

		LauncherFactory.create()
			.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(WithoutSpring.class)).build(),
					listener);

		assertThat(listener.getSummary().getFailures()).singleElement()
			.satisfies((failure) -> assertThat(failure.getException()).hasMessageContaining("@EmbeddedNats on ")
				.hasMessageContaining("annotate it with @SpringBootTest"));
	}

	/** A test that forgot {@code @SpringBootTest}. */
	@EmbeddedNats
	static class WithoutSpring {

		@Test
		void needsAServer() {
		}

	}

}
