package dev.exactlyonce.publish;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code exactlyonce.publish} observation keeps its names and key values by default, and
 * takes them from an application's convention when it has one.
 */
class PublishObservationTests {

	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	private final ObservationRegistry registry = ObservationRegistry.create();

	PublishObservationTests() {
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				PublishObservationTests.this.stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

	@Test
	void byDefaultTheObservationIsNamedAfterTheSubject() {
		assertThat(PublishObservation.observe(this.registry, null, "tasks.one", "t-1", new Headers(), () -> "sent"))
			.isEqualTo("sent");

		assertThat(this.stopped).singleElement().satisfies((observed) -> {
			assertThat(observed.getName()).isEqualTo("exactlyonce.publish");
			assertThat(observed.getContextualName()).isEqualTo("tasks.one publish");
			assertThat(observed.getLowCardinalityKeyValues()).isEmpty();
			assertThat(observed.getHighCardinalityKeyValues())
				.containsExactly(KeyValue.of("messaging.destination.name", "tasks.one"));
		});
	}

	@Test
	void aConventionRenamesTheObservationAndChangesItsKeyValues() {
		PublishObservation.observe(this.registry, new StreamConvention(), "tasks.one", "t-1", new Headers(), () -> "sent");

		assertThat(this.stopped).singleElement().satisfies((observed) -> {
			assertThat(observed.getName()).isEqualTo("agents.publish");
			assertThat(observed.getLowCardinalityKeyValues()).containsExactly(KeyValue.of("subject.root", "tasks"));
			assertThat(observed.getHighCardinalityKeyValues()).contains(KeyValue.of("messaging.message.id", "t-1"));
		});
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
