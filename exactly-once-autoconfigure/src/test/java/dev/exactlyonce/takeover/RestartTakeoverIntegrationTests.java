package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A restarted instance (same {@code exactlyonce.instance-id}) resumes the tasks its predecessor ran
 * when it was killed, at once rather than after the ack wait (60 s here) and the lease (40 s), without
 * running their finished steps again; at once as it starts with {@code exactlyonce.takeover.silence=0s}.
 * A live instance that shares the id keeps its tasks, with any silence.
 */
@ExtendWith(OutputCaptureExtension.class)
class RestartTakeoverIntegrationTests extends TakeoverTestsBase {

	private static final int TASKS = 3;

	@Test
	void aKilledInstanceIsResumedByItsRestartSoonAfterTheSilenceWithoutRunningItsFinishedStepsAgain() throws Exception {
		Resumed resumed = killAndRestart();
		assertThat(resumed.sinceKill()).as("about the silence after the kill (the dead one's record goes unwritten that long)")
			.isGreaterThan(TakeoverApp.SILENCE.minusSeconds(1))
			.isLessThan(TakeoverApp.SILENCE.plusSeconds(10));
		assertThat(resumed.sinceKill()).as("before the killed attempts' lease (40 s) ran out, let alone their ack wait (60 s)")
			.isLessThan(Duration.ofSeconds(40));
	}

	/**
	 * With {@code exactlyonce.takeover.silence=0s} (one process per instance id, as DBOS assumes of its
	 * executor id) the restart takes the killed process's tasks over as it starts.
	 */
	@Test
	void aKilledInstanceIsResumedAsItsRestartStartsWithASilenceOfZero() throws Exception {
		// a long request timeout makes the silence it would otherwise derive (22 s) far longer than a start
		Duration requestTimeout = Duration.ofSeconds(10);
		Resumed resumed = killAndRestart("exactlyonce.takeover.silence=0s",
				"exactlyonce.nats.request-timeout=" + requestTimeout.toSeconds() + "s");
		assertThat(resumed.sinceStarted()).as("soon after the restarted application had started").isLessThan(Duration.ofSeconds(5));
		assertThat(resumed.sinceKill()).as("well before the silence derived from its NATS settings after the kill")
			.isLessThan(RestartTakeover.silence(TakeoverApp.RECONNECT_WAIT, requestTimeout).minusSeconds(5));
	}

	@Test
	void aLiveInstanceWithTheSameIdKeepsItsTasks(CapturedOutput output) throws Exception {
		assertLiveInstanceKeepsItsTasks(output);
	}

	/** The "no responders" check stays with a silence of 0: a connected process is never taken over. */
	@Test
	void aLiveInstanceWithTheSameIdKeepsItsTasksWithASilenceOfZero(CapturedOutput output) throws Exception {
		assertLiveInstanceKeepsItsTasks(output, "exactlyonce.takeover.silence=0s");
	}

	@Test
	void aNegativeSilenceFailsStartUpNamingThePropertyAndTheFix() {
		assertThat(configurationFailure(() -> start("pod-0", "exactlyonce.takeover.silence=-1s")))
			.hasMessageContaining("exactlyonce.takeover.silence is PT-1S")
			.hasMessageContaining("cannot be negative")
			.hasMessageContaining("Set exactlyonce.takeover.silence to 0s or more");
	}

	/**
	 * Kills a worker JVM holding {@value #TASKS} tasks in step 2 and starts an instance with its id;
	 * asserts that the tasks completed as taken-over abandoned attempts without running step 1 again.
	 */
	private Resumed killAndRestart(String... extra) throws Exception {
		TakeoverWorker first = new TakeoverWorker(this.nats.url(), "pod-0");
		this.workers.add(first);
		publish(TASKS);
		for (int i = 0; i < TASKS; i++) {
			first.awaitLine(TakeoverApp.STEP + " t-" + i + " 2");
		}
		for (int i = 0; i < TASKS; i++) {
			awaitListed("worker:t-" + i);
		}
		first.close();
		long killed = System.nanoTime();
		ConfigurableApplicationContext restarted = start("pod-0", extra);
		long started = System.nanoTime();
		TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
		IdempotencyStore store = restarted.getBean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(40)).until(() -> completed(store) == TASKS);
		long done = System.nanoTime();
		Resumed resumed = new Resumed(Duration.ofNanos(done - killed), Duration.ofNanos(done - started));
		System.out.println("TAKEOVER-RESUME " + TASKS + " tasks completed " + resumed.sinceKill() + " after the kill, "
				+ resumed.sinceStarted() + " after the restarted application had started " + List.of(extra));
		for (int i = 0; i < TASKS; i++) {
			assertThat(steps.runs("t-" + i, 1)).as("step 1 of t-%d, finished before the kill", i).isZero();
			assertThat(steps.runs("t-" + i, 2)).as("step 2 of t-%d, cut off by the kill", i).isEqualTo(1);
			assertThat(steps.runs("t-" + i, 3)).isEqualTo(1);
			IdempotencyRecord record = store.find("worker:t-" + i).orElseThrow();
			assertThat(record.previousAttempt()).as("the killed attempt, taken over as an abandoned one").isNotNull();
			assertThat(record.previousAttempt().abandoned()).isTrue();
			assertThat(record.previousAttempt().owner()).startsWith("pod-0#");
		}
		return resumed;
	}

	/**
	 * Starts an instance with a task held in step 2, then a second one with the same id and
	 * {@code twinProperties}; the second decides that the first is still connected (ERROR) and leaves
	 * its task alone, which the first then completes.
	 */
	private void assertLiveInstanceKeepsItsTasks(CapturedOutput output, String... twinProperties) throws Exception {
		ConfigurableApplicationContext running = start("pod-0", "test.hold=true");
		TakeoverApp.Steps holding = running.getBean(TakeoverApp.Steps.class);
		publish(1);
		await().atMost(Duration.ofSeconds(20)).until(() -> holding.runs("t-0", 2) == 1);
		awaitListed("worker:t-0");
		IdempotencyStore store = running.getBean(IdempotencyStore.class);
		String token = store.find("worker:t-0").orElseThrow().token();
		ConfigurableApplicationContext twin = start("pod-0", twinProperties);
		TakeoverApp.Steps twinSteps = twin.getBean(TakeoverApp.Steps.class);
		// the twin's presence request to the live one times out (its request timeout): it is still connected
		await().atMost(TakeoverApp.SILENCE.plusSeconds(10))
			.until(() -> output.getOut().contains("is still connected to NATS"));
		await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			IdempotencyRecord held = store.find("worker:t-0").orElseThrow();
			assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);
			assertThat(held.token()).as("the live instance's claim, not taken over").isEqualTo(token);
			assertThat(held.leaseUntil()).isAfter(Instant.now().plusSeconds(20));
			assertThat(twinSteps.runs("t-0", 1) + twinSteps.runs("t-0", 2)).isZero();
		});
		holding.release();
		await().atMost(Duration.ofSeconds(20)).until(() -> completed(store) == 1);
		assertThat(holding.runs("t-0", 3)).isEqualTo(1);
		assertThat(twinSteps.runs("t-0", 2) + twinSteps.runs("t-0", 3)).isZero();
		assertThat(store.find("worker:t-0").orElseThrow().token()).isEqualTo(token);
	}

	@Test
	void aTakeoverWithoutAnExplicitInstanceIdFailsStartUpNamingTheProperty() {
		assertThat(configurationFailure(() -> start(""))).hasMessageContaining("exactlyonce.instance-id")
			.hasMessageContaining("exactlyonce.takeover.enabled=false");
	}

	/** The {@link ExactlyOnceConfigurationException} a start-up failed with. */
	private static Throwable configurationFailure(ThrowingCallable startUp) {
		Throwable root = catchThrowable(startUp);
		while (root.getCause() != null && !(root instanceof ExactlyOnceConfigurationException)) {
			root = root.getCause();
		}
		assertThat(root).isInstanceOf(ExactlyOnceConfigurationException.class);
		return root;
	}

	private ConfigurableApplicationContext start(String instanceId, String... extra) {
		ConfigurableApplicationContext context = TakeoverApp.start(this.nats.url(), instanceId, extra);
		this.contexts.add(context);
		return context;
	}

	private void publish(int tasks) throws Exception {
		try (Connection connection = Nats.connect(this.nats.url())) {
			JetStream jetStream = connection.jetStream();
			for (int i = 0; i < tasks; i++) {
				jetStream.publish(NatsMessage.builder().subject("tasks.t").data("\"t-" + i + "\"", StandardCharsets.UTF_8).build(),
						PublishOptions.builder().messageId("t-" + i).build());
			}
		}
	}

	/**
	 * When the taken-over tasks had all completed.
	 * @param sinceKill after the kill
	 * @param sinceStarted after the restarted application's start returned
	 */
	private record Resumed(Duration sinceKill, Duration sinceStarted) {
	}

	private static long completed(IdempotencyStore store) {
		long completed = 0;
		for (int i = 0; i < TASKS; i++) {
			completed += store.find("worker:t-" + i).filter((record) -> record.state() == RecordState.COMPLETED).isPresent()
					? 1 : 0;
		}
		return completed;
	}

}
