package dev.exactlyonce.publish;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.testapp.StoppedObservations;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code exactlyonce.publish} observation keeps its names and key values by default, and
 * takes them from an application's convention when it has one.
 */
class PublishObservationTests {

	private final StoppedObservations observations = new StoppedObservations();

	@Test
	void byDefaultTheObservationIsNamedAfterTheSubject() {
		assertThat(publish(null)).isEqualTo("sent");

		assertThat(this.observations.stopped()).singleElement().satisfies((observed) -> {
			assertThat(observed.getName()).isEqualTo("exactlyonce.publish");
			assertThat(observed.getContextualName()).isEqualTo("tasks.one publish");
			assertThat(observed.getLowCardinalityKeyValues()).isEmpty();
			assertThat(observed.getHighCardinalityKeyValues())
				.containsExactly(KeyValue.of("messaging.destination.name", "tasks.one"));
		});
	}

	@Test
	void aConventionRenamesTheObservationAndChangesItsKeyValues() {
		publish(new StreamConvention());

		assertThat(this.observations.stopped()).singleElement().satisfies((observed) -> {
			assertThat(observed.getName()).isEqualTo("agents.publish");
			assertThat(observed.getLowCardinalityKeyValues()).containsExactly(KeyValue.of("subject.root", "tasks"));
			assertThat(observed.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", "t-1"));
		});
	}

	private String publish(PublishObservationConvention convention) {
		return PublishObservation.observe(this.observations.registry(), convention, "tasks.one", "t-1", new Headers(),
				() -> "sent");
	}

	/** Renames the observation, tags it with the subject's first token and the message id. */
	static class StreamConvention extends DefaultPublishObservationConvention {

		@Override
		public String getName() {
			return "agents.publish";
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(PublishObservationContext context) {
			return KeyValues.of("subject.root", context.getSubject().split("\\.")[0]);
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(PublishObservationContext context) {
			return super.getHighCardinalityKeyValues(context).and("messaging.message.id", context.getMessageId());
		}

	}

}
