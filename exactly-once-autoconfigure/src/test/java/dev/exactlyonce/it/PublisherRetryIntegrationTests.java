package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishException;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The publisher retries a publish whose answer is lost with the same message id, but never so late
 * that a retry could arrive after the stream's duplicate window; a retry budget longer than a
 * declared window is reported at start-up.
 */
@ExtendWith(OutputCaptureExtension.class)
class PublisherRetryIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.auto-startup", "false")
			.with("exactlyonce.streams.TASKS.duplicate-window", "3s")
			.with("exactlyonce.nats.request-timeout", "500ms")
			.with("exactlyonce.publisher.max-attempts", "20")
			.with("exactlyonce.publisher.initial-backoff", "200ms");
	}

	@Test
	void retryBudgetBeyondTheDuplicateWindowIsReportedAtStartup(CapturedOutput output) {
		this.instances.start("publisher");
		assertThat(output).contains("exactlyonce.streams.TASKS.duplicate-window is PT3S")
			.contains("retries will stop at the window");
	}

	@Test
	void retriesStopBeforeTheDuplicateWindowEnds() {
		ExactlyOncePublisher publisher = this.instances.start("publisher").bean(ExactlyOncePublisher.class);
		publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-0"), "t-0");
		this.nats.kill();
		long started = System.nanoTime();
		assertThatExceptionOfType(PublishException.class)
			.isThrownBy(() -> publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1"))
			.withMessageContaining("duplicate window (PT3S)");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
	}

}
