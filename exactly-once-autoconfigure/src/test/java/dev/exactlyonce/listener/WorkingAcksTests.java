package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WorkingAcks}.
 */
class WorkingAcksTests {

	@Test
	void stoppedHeartbeatsLeaveOnlyThePacingTaskScheduled() throws Exception {
		// a cancelled beat left in the queue would keep its delivery (and payload) until its due time,
		// one working-ack interval, for every message handled meanwhile
		ScheduledThreadPoolExecutor scheduler = WorkingAcks.scheduler(1, Thread::new, Duration.ofSeconds(10));
		try {
			WorkingAcks workingAcks = new WorkingAcks(scheduler,
					new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(), Duration.ofHours(1))),
					new PipelineObservers(List.of()));
			Delivery delivery = delivery();
			assertThat(scheduler.getQueue()).hasSize(1);
			workingAcks.hold(delivery).stop();
			workingAcks.start(delivery).stop();
			assertThat(scheduler.getQueue()).hasSize(1);
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	private static Delivery delivery() throws Exception {
		NatsMessage message = NatsMessage.builder()
			.subject("agents.tasks")
			.data("{}".getBytes(StandardCharsets.UTF_8))
			.build();
		ListenerEndpoint endpoint = new ListenerEndpoint("worker", "worker", null, new Listener(),
				Listener.class.getDeclaredMethod("handle", byte[].class), "listener");
		ConsumerSettings settings = new ConsumerSettings("worker", "TASKS", Duration.ofSeconds(30),
				Duration.ofSeconds(10), Duration.ofMinutes(2), List.of(), Duration.ofSeconds(5), 5, 1,
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of());
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	static class Listener {

		void handle(byte[] payload) {
		}

	}

}
