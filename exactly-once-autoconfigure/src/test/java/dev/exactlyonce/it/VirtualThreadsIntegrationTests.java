package dev.exactlyonce.it;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.Ledger;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code spring.threads.virtual.enabled=true}: from Java 21 on, handlers run on a virtual thread
 * each, named as the platform workers are, as many at once as the consumer's concurrency and never
 * more, and the JVM starts few platform threads; before Java 21 the property is ignored, as Boot
 * ignores it, and handlers run on the pool of platform threads. The normal suite (Java 17) checks
 * the latter; {@code scripts/test-jdk25.sh} runs this class on JDK 25, with the shutdown and
 * pipelined suites on virtual threads too, and sets {@code test.require-virtual-threads}, so that
 * a run on an older JVM fails.
 */
class VirtualThreadsIntegrationTests extends NatsIntegrationTestSupport {

	private static final int CONCURRENCY = 500;

	private static final int TASKS = 2 * CONCURRENCY;

	private static final boolean VIRTUAL = Runtime.version().feature() >= 21;

	@Override
	protected void configure(TestInstances instances) {
		instances.with("spring.threads.virtual.enabled", "true");
	}

	@Test
	void theJvmIsTheOneTheRunAskedFor() {
		if (Boolean.getBoolean("test.require-virtual-threads")) {
			assertThat(Runtime.version().feature()).as("Java version of " + System.getProperty("java.home")
					+ " (test.require-virtual-threads needs 21 or later)").isGreaterThanOrEqualTo(21);
		}
	}

	@Test
	void handlersRunAtTheConsumersConcurrencyEachOnceOnVirtualThreadsFromJava21On() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.listener.auto-startup=false",
				"exactlyonce.consumers.worker.concurrency=" + CONCURRENCY,
				"exactlyonce.consumers.worker.max-ack-pending=" + TASKS, "test.work-duration=3s");
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		IntStream.range(0, TASKS)
			.mapToObj((n) -> "t-" + n)
			.forEach((task) -> publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of(task), task));
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		threads.resetPeakThreadCount();
		int before = threads.getThreadCount();

		instance.bean(ExactlyOnceListenerRegistry.class).start();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofMinutes(2))
				.until(() -> instance.recorder().outcomes().size() == TASKS && probe.drained("TASKS", "worker"));
			assertNoMessageDeliveredTwice(probe);
		}

		Ledger ledger = this.instances.ledger();
		assertThat(instance.recorder().outcomes()).hasSize(TASKS).containsOnly(DeliveryOutcome.PROCESSED);
		assertThat(ledger.executions()).hasSize(TASKS);
		IntStream.range(0, TASKS).forEach((n) -> assertThat(ledger.executionsOf("t-" + n)).as("t-" + n).isEqualTo(1));
		assertThat(ledger.mostRunningAtOnce()).as("handlers running at once").isBetween(CONCURRENCY / 2, CONCURRENCY);
		assertThat(ledger.handlerThreads()).as("handler threads")
			.allSatisfy((thread) -> assertThat(thread.getName()).matches("exactlyonce-worker-\\d+"))
			.allSatisfy((thread) -> assertThat(isVirtual(thread)).as(thread.getName() + " is virtual").isEqualTo(VIRTUAL));
		if (VIRTUAL) {
			assertThat(ledger.handlerThreads()).as("a virtual thread per message").hasSize(TASKS);
			assertThat(threads.getPeakThreadCount() - before).as("platform threads added, handlers and timers on virtual ones")
				.isLessThan(CONCURRENCY / 5);
		}
		else {
			assertThat(ledger.handlerThreads()).as("the pool's platform threads").hasSize(CONCURRENCY);
			assertThat(threads.getPeakThreadCount() - before).as("platform threads added").isGreaterThan(CONCURRENCY);
		}
	}

	/** {@code Thread.isVirtual()}, which Java 21 added: before it every thread is a platform thread. */
	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (NoSuchMethodException ex) {
			return false;
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
