package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.Test;
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
 * running their finished steps again; a live instance that shares the id keeps its tasks.
 */
class RestartTakeoverIntegrationTests extends TakeoverTestsBase {

	private static final int TASKS = 3;

	@Test
	void aKilledInstanceIsResumedByItsRestartSoonAfterTheSilenceWithoutRunningItsFinishedStepsAgain() throws Exception {
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
		ConfigurableApplicationContext restarted = start("pod-0");
		TakeoverApp.Steps steps = restarted.getBean(TakeoverApp.Steps.class);
		IdempotencyStore store = restarted.getBean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(40)).until(() -> completed(store) == TASKS);
		Duration resumed = Duration.ofNanos(System.nanoTime() - killed);
		System.out.println("TAKEOVER-RESUME " + TASKS + " tasks completed " + resumed + " after the kill (silence "
				+ TakeoverApp.SILENCE + ")");
		assertThat(resumed).as("about the silence after the kill (the dead one's record goes unwritten that long)")
			.isGreaterThan(TakeoverApp.SILENCE.minusSeconds(1))
			.isLessThan(TakeoverApp.SILENCE.plusSeconds(10));
		assertThat(resumed).as("before the killed attempts' lease (40 s) ran out, let alone their ack wait (60 s)")
			.isLessThan(Duration.ofSeconds(40));
		for (int i = 0; i < TASKS; i++) {
			assertThat(steps.runs("t-" + i, 1)).as("step 1 of t-%d, finished before the kill", i).isZero();
			assertThat(steps.runs("t-" + i, 2)).as("step 2 of t-%d, cut off by the kill", i).isEqualTo(1);
			assertThat(steps.runs("t-" + i, 3)).isEqualTo(1);
			IdempotencyRecord record = store.find("worker:t-" + i).orElseThrow();
			assertThat(record.previousAttempt()).as("the killed attempt, taken over as an abandoned one").isNotNull();
			assertThat(record.previousAttempt().abandoned()).isTrue();
			assertThat(record.previousAttempt().owner()).startsWith("pod-0#");
		}
	}

	@Test
	void aLiveInstanceWithTheSameIdKeepsItsTasks() throws Exception {
		ConfigurableApplicationContext running = start("pod-0", "test.hold=true");
		TakeoverApp.Steps holding = running.getBean(TakeoverApp.Steps.class);
		publish(1);
		await().atMost(Duration.ofSeconds(20)).until(() -> holding.runs("t-0", 2) == 1);
		IdempotencyStore store = running.getBean(IdempotencyStore.class);
		String token = store.find("worker:t-0").orElseThrow().token();
		ConfigurableApplicationContext twin = start("pod-0");
		TakeoverApp.Steps twinSteps = twin.getBean(TakeoverApp.Steps.class);
		// longer than the takeover's wait for a silent record
		await().during(TakeoverApp.SILENCE.plusSeconds(2))
			.atMost(TakeoverApp.SILENCE.plusSeconds(7))
			.untilAsserted(() -> {
				IdempotencyRecord held = store.find("worker:t-0").orElseThrow();
				assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);
				assertThat(held.token()).as("the live instance's claim, not taken over").isEqualTo(token);
				assertThat(held.leaseUntil()).isAfter(java.time.Instant.now().plusSeconds(20));
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
		Throwable failure = catchThrowable(() -> start(""));
		Throwable root = failure;
		while (root.getCause() != null && !(root instanceof ExactlyOnceConfigurationException)) {
			root = root.getCause();
		}
		assertThat(root).isInstanceOf(ExactlyOnceConfigurationException.class)
			.hasMessageContaining("exactlyonce.instance-id")
			.hasMessageContaining("exactlyonce.takeover.enabled=false");
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

	private static long completed(IdempotencyStore store) {
		long completed = 0;
		for (int i = 0; i < TASKS; i++) {
			completed += store.find("worker:t-" + i).filter((record) -> record.state() == RecordState.COMPLETED).isPresent()
					? 1 : 0;
		}
		return completed;
	}

}
