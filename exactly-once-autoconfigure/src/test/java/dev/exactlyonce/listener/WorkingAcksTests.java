package dev.exactlyonce.listener;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

	@Test
	void aHeartbeatWhoseRecordIsWrittenRenewsNoMoreAndLosesNoClaim() throws Exception {
		// a beat between the completion record's write and the heartbeat's stop (the ack, or a child
		// reporting to its parent, runs between them) renewed the completed record: "Lost the claim"
		ScheduledThreadPoolExecutor scheduler = WorkingAcks.scheduler(1, Thread::new, Duration.ofMillis(20));
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(), Duration.ofHours(1)));
		List<Boolean> renewals = new CopyOnWriteArrayList<>();
		PipelineObserver observer = new PipelineObserver() {

			@Override
			public void onWorkingAck(ExactlyOnceContext context, boolean leaseRenewed) {
				renewals.add(leaseRenewed);
			}

		};
		WorkingAcks.Heartbeat heartbeat = null;
		try {
			Delivery delivery = delivery(Duration.ofMillis(20));
			Claim claim = ((ClaimResult.Acquired) store.tryClaim("worker:k", "me", Duration.ofSeconds(10))).claim();
			delivery.claimed(claim, null);
			heartbeat = new WorkingAcks(scheduler, store, new PipelineObservers(List.of(observer))).start(delivery);
			await().atMost(Duration.ofSeconds(10)).until(() -> renewals.contains(true));
			WorkingAcks.Heartbeat beating = heartbeat;
			heartbeat.exclusive(() -> {
				IdempotencyRecord completed = store.complete(delivery.claim(), Completion.completed("listener", 7, "done"));
				beating.recorded();
				return completed;
			});
			int beatsBefore = renewals.size();
			await().atMost(Duration.ofSeconds(10)).until(() -> renewals.size() >= beatsBefore + 3);

			assertThat(heartbeat.claimLost()).as("a renewal after the record was written").isFalse();
			List<Boolean> beats = List.copyOf(renewals);
			assertThat(beats.subList(beatsBefore, beats.size())).as("renewals after it").containsOnly(false);
		}
		finally {
			if (heartbeat != null) {
				heartbeat.stop();
			}
			scheduler.shutdownNow();
		}
	}

	private static Delivery delivery() throws Exception {
		return delivery(Duration.ofSeconds(10));
	}

	private static Delivery delivery(Duration workingAckInterval) throws Exception {
		NatsMessage message = NatsMessage.builder()
			.subject("agents.tasks")
			.data("{}".getBytes(StandardCharsets.UTF_8))
			.build();
		ListenerEndpoint endpoint = new ListenerEndpoint("worker", "worker", null, new Listener(),
				Listener.class.getDeclaredMethod("handle", byte[].class), "listener");
		ConsumerSettings settings = new ConsumerSettings("worker", "TASKS", Duration.ofSeconds(30),
				workingAckInterval, Duration.ofMinutes(2), List.of(), Duration.ofSeconds(5), 5, 1,
				AbandonedPolicy.RETRY, Duration.ofSeconds(2), "deadletter.TASKS.worker", 1024, List.of(), null);
		return new Delivery(message, 7, 1, endpoint, settings);
	}

	static class Listener {

		void handle(byte[] payload) {
		}

	}

}
