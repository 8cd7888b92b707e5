package dev.exactlyonce.it;

import java.time.Duration;

import io.nats.client.JetStreamManagement;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stream changed under a running application so that it no longer keeps what the guarantees
 * need (tasks for their declared age, message ids for the declared duplicate window) takes health
 * DOWN naming the property and the fix; other drift stays a warning.
 */
class WeakenedStreamIntegrationTests extends NatsIntegrationTestSupport {

	@Test
	void aStreamWhoseRetentionAndDuplicateWindowAreShrunkUnderTheAppIsAProblemNotAWarning() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.streams.TASKS.max-age=72h");
		assertThat(health(instance).getStatus()).isEqualTo(Status.UP);

		try (JetStreamProbe admin = new JetStreamProbe(this.nats.url())) {
			JetStreamManagement management = admin.connection().jetStreamManagement();
			StreamConfiguration declared = management.getStreamInfo("TASKS").getConfiguration();
			management.updateStream(StreamConfiguration.builder(declared)
				.maxAge(Duration.ofSeconds(1))
				.duplicateWindow(Duration.ofMillis(500))
				.build());
		}

		Health health = health(instance);
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(String.valueOf(health.getDetails().get("problems")))
			.contains("Stream 'TASKS' weakened: exactlyonce.streams.TASKS.max-age: server 1s, declared 3d")
			.contains("exactlyonce.streams.TASKS.duplicate-window: server 500ms, declared 1h")
			.contains("exactlyonce.provisioning.mode=create-or-update");
		assertThat(String.valueOf(health.getDetails().get("warnings"))).doesNotContain("max-age")
			.doesNotContain("duplicate-window");
	}

	private static Health health(Instance instance) {
		return instance.bean(ExactlyOnceHealthIndicator.class).health();
	}

}
