package dev.exactlyonce.actuate;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.nats.client.impl.Headers;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.testapp.StoppedObservations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * The {@code exactlyonce.process} observation keeps its names and key values by default, and
 * takes them from an application's convention when it has one.
 */
class PipelineObservationTests {

	private final StoppedObservations observations = new StoppedObservations();

	@Test
	void byDefaultTheObservationIsNamedAfterTheConsumerAndCarriesTheOutcome() {
		handle(new PipelineObservation(this.observations.registry(), null), DeliveryOutcome.PROCESSED);

		Observation.Context observed = single();
		assertThat(observed.getName()).isEqualTo("exactlyonce.process");
		assertThat(observed.getContextualName()).isEqualTo("worker process");
		assertThat(observed.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("stream", "TASKS"),
				KeyValue.of("consumer", "worker"), KeyValue.of("outcome", "processed"));
		assertThat(observed.getHighCardinalityKeyValues()).containsExactlyInAnyOrder(
				KeyValue.of("messaging.message.sequence", "42"), KeyValue.of("messaging.delivery.count", "2"));
	}

	@Test
	void aDeliveryWhosePipelineHaltedIsStoppedAsHalted() {
		PipelineObservation observation = new PipelineObservation(this.observations.registry(), null);
		ExactlyOnceContext delivery = delivery();
		observation.onPoint(PipelinePoint.RECEIVED, delivery);
		observation.onHalted(delivery);

		assertThat(single().getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("halted");
	}

	@Test
	void aDeliverySettledOnAnotherThreadIsStoppedWithItsOwnOutcomeWhileTheWorkerTookTheNext() throws Exception {
		PipelineObservation observation = new PipelineObservation(this.observations.registry(), null);
		ExactlyOnceContext first = delivery();
		observation.onPoint(PipelinePoint.RECEIVED, first);
		observation.onPoint(PipelinePoint.HANDLED, first);
		observation.onPoint(PipelinePoint.RECEIVED, delivery());
		Thread completion = new Thread(() -> observation.onOutcome(DeliveryOutcome.PROCESSED, first));
		completion.start();
		completion.join();

		assertThat(single().getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("processed");
		assertThat(this.observations.registry().getCurrentObservation()).as("the second delivery's, on its worker")
			.isNotNull();
	}

	@Test
	void aConventionRenamesTheObservationAndChangesItsKeyValues() {
		handle(new PipelineObservation(this.observations.registry(), new TeamConvention()), DeliveryOutcome.DUPLICATE);

		Observation.Context observed = single();
		assertThat(observed.getName()).isEqualTo("agents.task");
		assertThat(observed.getContextualName()).isEqualTo("worker process");
		assertThat(observed.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("stream", "TASKS"),
				KeyValue.of("consumer", "worker"), KeyValue.of("outcome", "duplicate"), KeyValue.of("team", "agents"));
	}

	private void handle(PipelineObservation observation, DeliveryOutcome outcome) {
		ExactlyOnceContext delivery = delivery();
		observation.onPoint(PipelinePoint.RECEIVED, delivery);
		observation.onOutcome(outcome, delivery);
	}

	private Observation.Context single() {
		assertThat(this.observations.stopped()).hasSize(1);
		return this.observations.stopped().get(0);
	}

	private static ExactlyOnceContext delivery() {
		ExactlyOnceContext delivery = mock(ExactlyOnceContext.class);
		given(delivery.stream()).willReturn("TASKS");
		given(delivery.consumer()).willReturn("worker");
		given(delivery.streamSequence()).willReturn(42L);
		given(delivery.deliveryCount()).willReturn(2L);
		given(delivery.headers()).willReturn(new Headers());
		return delivery;
	}

	/** Renames the observation and tags it with a team. */
	static class TeamConvention extends DefaultPipelineObservationConvention {

		@Override
		public String getName() {
			return "agents.task";
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(PipelineObservationContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "agents");
		}

	}

}
