package dev.exactlyonce.publish;

import java.time.Duration;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.SenderContext;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tracer's propagation handler sees the publish as a sender observation whose carrier is the
 * message headers: what it injects travels with the stored message.
 */
class PublishTracingIntegrationTests {

	private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

	@Test
	void traceContextInjectedByTheTracerIsStoredWithTheMessage() throws Exception {
		try (NatsServerProcess nats = new NatsServerProcess().start(); Connection connection = Nats.connect(nats.url())) {
			JetStreamManagement management = connection.jetStreamManagement();
			management.addStream(StreamConfiguration.builder().name("TASKS").subjects("tasks.>").build());
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new InjectingHandler());
			ExactlyOncePublisher publisher = new ExactlyOncePublisher(connection, connection.jetStream(), JsonMapper.builder().build(),
					new PublishRetryPolicy(1, Duration.ofMillis(100), Duration.ofSeconds(2)),
					new DuplicateWindows(management, Duration.ofMinutes(2)));
			publisher.setObservationRegistry(registry);

			PublishResult result = publisher.publish("tasks.one", "{}", "t-1");

			assertThat(management.getMessage("TASKS", result.streamSequence()).getHeaders().getFirst("traceparent"))
				.isEqualTo(TRACEPARENT);
		}
	}

	/** Does what a tracing bridge's propagating sender handler does on start. */
	static class InjectingHandler implements ObservationHandler<SenderContext<Object>> {

		@Override
		public void onStart(SenderContext<Object> context) {
			context.getSetter().set(context.getCarrier(), "traceparent", TRACEPARENT);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof SenderContext;
		}

	}

}
