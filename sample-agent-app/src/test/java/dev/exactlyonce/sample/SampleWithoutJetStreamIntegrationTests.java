package dev.exactlyonce.sample;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The sample started against a nats-server without JetStream fails at once with the report that
 * names JetStream and the fix, whichever of its beans asks JetStream first (the monthly tally
 * bucket of the operations page asked first and retried until it failed with a 160-line trace).
 */
class SampleWithoutJetStreamIntegrationTests {

	@TempDir
	Path output;

	@Test
	void startingAgainstAServerWithoutJetStreamFailsNamingJetStreamAndTheFix() {
		try (NatsServerProcess plain = NatsServerProcess.withoutJetStream().start()) {
			// as arguments: they override the sample's application.yml (default properties would not)
			Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(SampleAgentApplication.class)
				.run("--server.port=0", "--exactlyonce.nats.servers=" + plain.url(), "--sample.output-dir=" + this.output)
				.close());

			Throwable cause = failure;
			while (cause != null && !(cause instanceof ExactlyOnceConfigurationException)) {
				cause = cause.getCause();
			}
			assertThat(cause).as("configuration failure in " + failure).isNotNull();
			assertThat(cause.getMessage()).contains("JetStream is not enabled on the NATS server at")
				.contains("nats-server -js");
		}
	}

}
