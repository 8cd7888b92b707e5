package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.Ledger;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.awaitility.Awaitility.await;

/**
 * A pull that fails after some of its messages were handed to workers leaves the worker count as
 * it was: later pulls stay sized to free workers, and the messages the failed pull had already
 * received are handed out without waiting for their ack wait.
 */
class PullFailureIntegrationTests {

	private static final int CONCURRENCY = 4;

	private static final int MESSAGES = 60;

	private static final int FAILED_PULLS = 5;

	private NatsServerProcess nats;

	private TestInstances instances;

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats).with("exactlyonce.listener.auto-startup", "false")
			.with("exactlyonce.consumers.worker.concurrency", CONCURRENCY)
			.with("exactlyonce.consumers.worker.max-ack-pending", 100)
			.with("exactlyonce.consumers.worker.ack-wait", "5s")
			.with("test.work-duration", "200ms");
	}

	@AfterEach
	void stopNats() {
		this.instances.close();
		this.nats.close();
	}

	@ParameterizedTest(name = "pipelined: {0}")
	@ValueSource(booleans = { false, true })
	void pullsFailingHalfWayKeepPullsSizedToFreeWorkersAndLoseNoMessage(boolean pipelined) {
		Instance instance = this.instances.start("a", "exactlyonce.listener.pipelined=" + pipelined);
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		for (int i = 0; i < MESSAGES; i++) {
			publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-" + i), "t-" + i);
		}
		ExactlyOnceListenerRegistry registry = instance.bean(ExactlyOnceListenerRegistry.class);
		ListenerContainer container = registry.container("worker");
		List<Integer> pullSizes = new CopyOnWriteArrayList<>();
		AtomicInteger mostFree = new AtomicInteger();
		AtomicInteger failedPulls = new AtomicInteger();
		container.pullProbe((wanted, received) -> {
			mostFree.accumulateAndGet(container.freeWorkers(), Math::max);
			if (received == 0) {
				pullSizes.add(wanted);
			}
			if (received == 2 && failedPulls.get() < FAILED_PULLS) {
				failedPulls.incrementAndGet();
				throw new IllegalStateException("simulated client failure after 2 messages of a pull");
			}
		});
		registry.start();
		Ledger ledger = this.instances.ledger();
		await().atMost(Duration.ofSeconds(60)).until(() -> ledger.executions().size() >= MESSAGES);
		registry.stop();

		SoftAssertions softly = new SoftAssertions();
		softly.assertThat(failedPulls.get()).as("pulls failed half-way").isEqualTo(FAILED_PULLS);
		softly.assertThat(pullSizes).as("sizes of the pulls").allSatisfy((size) -> softly.assertThat(size)
			.as("a pull asks for no more than concurrency").isLessThanOrEqualTo(CONCURRENCY));
		softly.assertThat(mostFree.get()).as("most free worker permits seen").isLessThanOrEqualTo(CONCURRENCY);
		softly.assertThat(container.freeWorkers()).as("free worker permits after stop").isEqualTo(CONCURRENCY);
		softly.assertThat(container.freeSlots()).as("free in-flight slots after stop")
			.isEqualTo(pipelined ? 2 * CONCURRENCY : CONCURRENCY);
		softly.assertThat(ledger.executions().stream().filter((execution) -> execution.deliveryCount() > 1).count())
			.as("messages that ran only after their ack wait (redelivered)").isZero();
		softly.assertThat(ledger.executions().stream().map(Ledger.Execution::taskId).distinct().count())
			.as("distinct tasks run").isEqualTo(MESSAGES);
		softly.assertThat(ledger.executions()).as("executions").hasSize(MESSAGES);
		softly.assertAll();
	}

}
