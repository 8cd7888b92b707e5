package dev.exactlyonce.autoconfigure;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One nats-server for a test class, and a context runner with the starter's auto-configurations.
 */
abstract class NatsContextRunnerTestSupport {

	protected static NatsServerProcess nats;

	protected final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
				ExactlyOnceStoreAutoConfiguration.class, ExactlyOnceAutoConfiguration.class));

	@BeforeAll
	static void startNats() {
		nats = new NatsServerProcess().start();
	}

	@AfterAll
	static void stopNats() {
		nats.close();
	}

	/** The first cause of the given type in a start-up failure's chain. */
	static Throwable cause(Throwable failure, Class<? extends Throwable> type) {
		assertThat(failure).as("start-up failure").isNotNull();
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return candidate;
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in the start-up failure", failure);
	}

}
