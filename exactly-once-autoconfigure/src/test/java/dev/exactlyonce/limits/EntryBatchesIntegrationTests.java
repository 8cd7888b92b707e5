package dev.exactlyonce.limits;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.StoreClock;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads of two instances changing one key's entry at once, on a real NATS KV bucket: every
 * thread gets its change's outcome, and every change is applied exactly once, however many are queued
 * behind a batch.
 */
class EntryBatchesIntegrationTests {

	private static final LimitDefinition DEPLOYS = new LimitDefinition("deploys", 1, 0, null, 100_000);

	private NatsServerProcess nats;

	private Connection connection;

	private KeyValue bucket;

	@BeforeEach
	void startNats() throws Exception {
		this.nats = new NatsServerProcess().start();
		this.connection = Nats.connect(this.nats.url());
		this.connection.keyValueManagement()
			.create(KeyValueConfiguration.builder().name(DurableLimits.BUCKET).build());
		this.bucket = this.connection.keyValue(DurableLimits.BUCKET);
	}

	@AfterEach
	void stopNats() throws Exception {
		this.connection.close();
		this.nats.close();
	}

	@Test
	void everyThreadOfALongQueueGetsItsOutcomeAndEveryChangeIsAppliedOnce() throws Exception {
		int threads = 1000;
		int togglesEach = 4;
		List<EntryBatches> instances = List.of(batches(), batches());
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> started = new ArrayList<>();
		for (int n = 0; n < threads; n++) {
			String task = "deploys:t-" + n;
			EntryBatches batches = instances.get(n % 2);
			started.add(start(() -> {
				try {
					go.await();
					for (int i = 0; i < togglesEach; i++) {
						Boolean queued = batches.apply(DEPLOYS, "svc", (state, now, room) -> {
							boolean joins = state.place(task) < 0;
							if (joins) {
								state.enqueue(task, now, now.plus(Duration.ofHours(1)));
							}
							else {
								state.queue().removeIf((waiter) -> waiter.task().equals(task));
							}
							return new EntryBatches.Applied<>(joins, true, 0);
						});
						assertThat(queued).as("toggle " + i + " of " + task).isEqualTo(i % 2 == 0);
					}
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
			}));
		}
		go.countDown();
		for (Thread thread : started) {
			thread.join(TimeUnit.MINUTES.toMillis(2));
			assertThat(thread.isAlive()).as("a thread hangs").isFalse();
		}
		assertThat(failures).as("what the threads got instead of their outcome").isEmpty();
		LimitState state = new LimitEntries(this.bucket, 1024 * 1024).read("deploys", "svc").state();
		assertThat(state.queue()).as("each task queued and left 2 times, each change applied once (again from a "
				+ "fresh read when the other instance wrote)").isEmpty();
	}

	private EntryBatches batches() {
		return new EntryBatches(new LimitEntries(this.bucket, 1024 * 1024), StoreClock.of(Clock.systemUTC()),
				(limit, state, now) -> {
				}, (limit, state, most) -> {
				});
	}

	private static Thread start(Runnable runnable) {
		Thread thread = new Thread(runnable);
		thread.start();
		return thread;
	}

}
