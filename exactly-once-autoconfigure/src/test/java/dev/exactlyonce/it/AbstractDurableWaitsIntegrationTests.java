package dev.exactlyonce.it;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.ApprovalTaskHandler.Approval;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A task that waits durably holds no worker, ack slot or lease while it waits, and resumes once,
 * from the top, with what ended its wait: a signal (sent before or after it reached the wait), its
 * timeout, or the end of a sleep, also when no instance ran at the time; a resubmitted task's run
 * is not satisfied by its earlier run's signal; a wait longer than {@code completed-ttl} finds its
 * record and its whole journal, sealed parts included. A subclass per store and listener mode.
 */
abstract class AbstractDurableWaitsIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.approvals.tasks.post";

	/** What the long wait's instance shortens: records kept 3 s after their last write, waits of 12 s at most, its own 11 s. */
	private static final String[] SHORT_TTLS = { "exactlyonce.store.completed-ttl=3s",
			"exactlyonce.waits.max-duration=12s", "exactlyonce.waits.recheck-interval=1s", "test.waits.timeout=11s",
			"exactlyonce.consumers.worker.max-deliver=-1", "exactlyonce.consumers.approvals.max-deliver=-1" };

	@Override
	protected final void configure(TestInstances instances) {
		configureStore(instances.with("test.waits.enabled", "true")
			.with("exactlyonce.consumers.approvals.stream", "TASKS")
			.with("exactlyonce.consumers.approvals.filter-subject", "agents.approvals.tasks.>")
			.with("exactlyonce.consumers.approvals.ack-wait", "5s")
			.with("exactlyonce.consumers.approvals.max-ack-pending", "2")
			.with("exactlyonce.store.lease", "3s"));
	}

	/**
	 * Selects the store and listener mode of the subclass.
	 * @param instances the instances to configure
	 */
	protected abstract void configureStore(TestInstances instances);

	/**
	 * Whether a second instance sees the first one's records (every store but the memory store).
	 * @return whether records outlive the instance that wrote them
	 */
	protected boolean storeSharedByInstances() {
		return true;
	}

	/**
	 * More properties of the long wait's instance, for consumers the subclass adds.
	 * @return properties as {@code name=value}
	 */
	protected List<String> shortTtlProperties() {
		return List.of();
	}

	/**
	 * Checks, while a task waits, what the store's own expiry would delete before the task resumes
	 * and the test cannot wait for (a Firestore TTL policy, which the emulator does not run).
	 * @param instance the instance
	 * @param storeKey the waiting task's key
	 * @param waiting its WAITING record
	 */
	protected void assertKeptWhileWaiting(Instance instance, String storeKey, IdempotencyRecord waiting)
			throws Exception {
	}

	@Test
	void aSignalResumesAWaitingTaskThatHeldNoMessageWhileItWaited() throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-approved");
		IdempotencyRecord waiting = awaitState(instance, "t-approved", RecordState.WAITING);

		assertThat(waiting.resultSummary()).startsWith("signal 'approval' until ");
		assertThat(waiting.completedAt()).as("a waiting task has not completed").isNull();
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.drained("TASKS", "approvals")).as("nothing pending or unacked while it waits").isTrue();
		}
		assertThat(signal(instance, "t-approved", new Approval(true, "alice"), "s-1")).isEqualTo(SignalOutcome.RESUMED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-approved") != null);
		assertThat(handler.result("t-approved")).startsWith("committed ").endsWith("approved by alice");
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.sawPreviousAttempt("t-approved")).as("a resumed task was not retried").isFalse();
		assertThat(this.instances.ledger().commitsOf("t-approved")).hasSize(1);
		IdempotencyRecord completed = awaitState(instance, "t-approved", RecordState.COMPLETED);
		assertThat(completed.completedAt()).isNotNull();
		assertThat(completed.audit()).extracting(OperatorAction::kind).containsExactly(OperatorAction.Kind.RESUME);
		assertThat(completed.audit().get(0).operator()).isEqualTo(ExactlyOnceSignals.APPLICATION);
		assertThat(completed.journal().find("approval")).get().extracting(StepRecord::state).isEqualTo(StepState.DONE);
		assertOutcomes(instance, DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().count(PipelinePoint.SUSPENDED)).as("observers told of the suspension").isEqualTo(1);
		assertThat(instance.recorder().count(PipelinePoint.COMPLETED)).as("only the resumed run completed").isEqualTo(1);
		assertThat(signal(instance, "t-approved", new Approval(true, "bob"), "s-2")).isEqualTo(SignalOutcome.TOO_LATE);
	}

	@Test
	void aSignalSentBeforeTheTaskReachesItsWaitIsKeptForIt() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=3s");
		publish(instance, "t-early");
		awaitState(instance, "t-early", RecordState.WAITING);

		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-early"))
			.as("the task sleeps before its wait for approval").isEqualTo(SignalOutcome.BUFFERED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-early") != null);
		assertThat(handler.result("t-early")).isEqualTo("rejected by carol");
		assertThat(this.instances.ledger().commitsOf("t-early")).isEmpty();
		assertOutcomes(instance, DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-early"))
			.as("the signal that ended the wait, sent again after the task finished").isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(signal(instance, "t-early", new Approval(false, "carol"), "s-late")).isEqualTo(SignalOutcome.TOO_LATE);
	}

	@Test
	void aWaitWithoutItsSignalTimesOutOnceAndALateSignalIsTooLate() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.timeout=2s");
		publish(instance, "t-timeout");

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-timeout") != null);
		assertThat(handler.result("t-timeout")).isEqualTo("timed-out");
		assertThat(signal(instance, "t-timeout", new Approval(true, "late"), "s-late")).isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(awaitState(instance, "t-timeout", RecordState.COMPLETED).audit()).singleElement()
			.satisfies((action) -> assertThat(action.reason()).isEqualTo("wait for signal 'approval' timed out"));
	}

	@Test
	void aSignalRacingItsTimeoutEndsTheWaitOnceAndItsSenderIsToldWhich() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.timeout=1500ms");
		List<String> keys = new ArrayList<>();
		List<SignalOutcome> answers = new ArrayList<>();
		for (int round = 0; round < 8; round++) {
			String key = "t-race-" + round;
			keys.add(key);
			publish(instance, key);
			Instant timesOut = endOfWait(awaitState(instance, key, RecordState.WAITING));
			Instant sendAt = timesOut.minusMillis(200).plusMillis(50 * round);
			await("round " + round + ": the signal is sent " + Duration.between(timesOut, sendAt).toMillis()
					+ " ms from the timeout").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
				.until(() -> !Instant.now().isBefore(sendAt));
			answers.add(signal(instance, key, new Approval(true, "racer"), "s-" + round));
		}
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		for (int round = 0; round < keys.size(); round++) {
			String key = keys.get(round);
			await().atMost(Duration.ofSeconds(30)).until(() -> handler.result(key) != null);
			SignalOutcome answer = answers.get(round);
			assertThat(answer).isIn(SignalOutcome.RESUMED, SignalOutcome.TOO_LATE);
			assertThat(handler.result(key)).as("round " + round + ", signal answered " + answer)
				.isEqualTo((answer == SignalOutcome.RESUMED) ? "committed " + this.instances.ledger().commitsOf(key).get(0)
						+ " approved by racer" : "timed-out");
			assertThat(this.instances.ledger().commitsOf(key)).hasSize((answer == SignalOutcome.RESUMED) ? 1 : 0);
		}
	}

	@Test
	void aSignalSentTwiceWithOneIdIsADuplicateAndUnknownTasksAreNamed() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.nap=2s");
		publish(instance, "t-twice");
		awaitState(instance, "t-twice", RecordState.WAITING);

		assertThat(signal(instance, "t-twice", new Approval(true, "dave"), "s-same")).isEqualTo(SignalOutcome.BUFFERED);
		assertThat(signal(instance, "t-twice", new Approval(true, "dave"), "s-same")).isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(signal(instance, "t-twice", new Approval(false, "eve"), "s-other")).isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(signal(instance, "t-never-published", new Approval(true, "x"), "s-x"))
			.isEqualTo(SignalOutcome.NO_SUCH_TASK);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-twice") != null);
		assertThat(handler.result("t-twice")).endsWith("approved by dave");
	}

	@Test
	void aSleepWhoseTimePassedWhileNoInstanceRanWakesWhenOneStarts() throws Exception {
		Instance first = this.instances.start("a", "test.waits.nap=2s");
		publish(first, "t-asleep");
		IdempotencyRecord asleep = awaitState(first, "t-asleep", RecordState.WAITING);
		Instant wakes = endOfWait(asleep);
		ApprovalTaskHandler firstHandler = first.bean(ApprovalTaskHandler.class);
		first.context().close();
		await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(wakes.plusMillis(500)));

		Instance second = this.instances.start("b", "test.waits.nap=2s");
		if (!storeSharedByInstances()) {
			assertThat(signal(second, "t-asleep", new Approval(true, "frank"), "s-asleep"))
				.as("this store's records ended with their instance").isEqualTo(SignalOutcome.NO_SUCH_TASK);
			return;
		}
		assertThat(signal(second, "t-asleep", new Approval(true, "frank"), "s-asleep")).isIn(SignalOutcome.BUFFERED,
				SignalOutcome.RESUMED);
		ApprovalTaskHandler handler = second.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-asleep") != null);
		assertThat(handler.result("t-asleep")).endsWith("approved by frank");
		assertThat(this.instances.ledger().commitsOf("t-asleep")).hasSize(1);
		assertThat(firstHandler.runs("draft") + handler.runs("draft")).as("model calls").isEqualTo(1);
	}

	@Test
	void aWaitNameUsedTwiceInOneRunIsRefusedAndDeadLettered() throws Exception {
		Instance instance = this.instances.start("a", "test.waits.approval-twice=true");
		publish(instance, "t-twice-named");
		awaitState(instance, "t-twice-named", RecordState.WAITING);
		assertThat(signal(instance, "t-twice-named", new Approval(true, "g"), "s-g")).isEqualTo(SignalOutcome.RESUMED);

		awaitState(instance, "t-twice-named", RecordState.DEAD_LETTERED);
		assertOutcomes(instance, DeliveryOutcome.SUSPENDED,
				DeliveryOutcome.DEAD_LETTERED);
	}

	@Test
	void aResubmittedTaskIsNotSatisfiedByItsEarlierRunsSignal() throws Exception {
		Instance instance = this.instances.start("a");
		publish(instance, "t-rerun");
		awaitState(instance, "t-rerun", RecordState.WAITING);
		assertThat(signal(instance, "t-rerun", new Approval(true, "alice"), "s-run-1")).isEqualTo(SignalOutcome.RESUMED);
		awaitState(instance, "t-rerun", RecordState.COMPLETED);
		assertThat(signal(instance, "t-rerun", new Approval(false, "late"), "s-late")).isEqualTo(SignalOutcome.TOO_LATE);

		instance.bean(ExactlyOncePublisher.class)
			.resubmit("approvals", "t-rerun", SUBJECT, TaskAssignment.of("t-rerun"), "ops", "run it again");
		IdempotencyRecord second = awaitState(instance, "t-rerun", RecordState.WAITING);
		assertThat(second.run()).isEqualTo(2);
		assertThat(second.journal().find("approval")).get().extracting(StepRecord::state).isEqualTo(StepState.STARTED);
		IdempotencyStore runs = instance.bean(IdempotencyStore.class);
		await("run 2 still waits for 1 s (run 1's signal is not its own): its record stays WAITING in run 2")
			.during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
			.until(() -> runs.find("approvals:t-rerun").orElseThrow(), (record) -> record.run() == 2
					&& record.state() == RecordState.WAITING);

		assertThat(signal(instance, "t-rerun", new Approval(true, "alice"), "s-run-1"))
			.as("run 1's signal sent again").isEqualTo(SignalOutcome.DUPLICATE);
		assertThat(instance.bean(IdempotencyStore.class).find("approvals:t-rerun").orElseThrow().state())
			.isEqualTo(RecordState.WAITING);
		assertThat(signal(instance, "t-rerun", new Approval(false, "bob"), "s-run-2")).isEqualTo(SignalOutcome.RESUMED);
		IdempotencyRecord completed = awaitState(instance, "t-rerun", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("rejected by bob");
		assertThat(this.instances.ledger().commitsOf("t-rerun")).as("run 1 committed, run 2 was rejected").hasSize(1);
	}

	@Test
	void aWaitLongerThanTheCompletedTtlFindsItsRecordAndWholeJournalWhenItResumes() throws Exception {
		List<String> properties = new ArrayList<>(List.of(SHORT_TTLS));
		properties.add("test.waits.bulk-steps=5");
		properties.addAll(shortTtlProperties());
		Instance instance = this.instances.start("a", properties.toArray(String[]::new));
		publish(instance, "t-long");
		IdempotencyRecord waiting = awaitState(instance, "t-long", RecordState.WAITING);
		assertKeptWhileWaiting(instance, "approvals:t-long", waiting);

		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		awaitKeptWaiting(store, "approvals:t-long", Duration.ofSeconds(8));
		assertThat(signal(instance, "t-long", new Approval(true, "patient"), "s-long")).isEqualTo(SignalOutcome.RESUMED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-long") != null);
		assertThat(handler.result("t-long")).endsWith("approved by patient");
		assertThat(handler.runs("bulk")).as("bulk steps replayed, not run again").isEqualTo(5);
		assertThat(handler.runs("draft")).isEqualTo(1);
		assertOutcomes(instance, DeliveryOutcome.SUSPENDED, DeliveryOutcome.PROCESSED);
	}

	@Test
	void twoWaitsLongerTogetherThanTheLongestWaitStillFindTheJournalSealedBeforeTheFirst() throws Exception {
		List<String> properties = new ArrayList<>(List.of(SHORT_TTLS));
		properties.addAll(List.of("test.waits.bulk-steps=5", "test.waits.nap=8s"));
		properties.addAll(shortTtlProperties());
		Instance instance = this.instances.start("a", properties.toArray(String[]::new));
		publish(instance, "t-two-waits");
		awaitState(instance, "t-two-waits", RecordState.WAITING);
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(40)).ignoreException(StoreUnavailableException.class)
			.until(() -> store.find("approvals:t-two-waits").orElse(null), (record) -> record != null
					&& record.state() == RecordState.WAITING && record.resultSummary().startsWith("signal 'approval'"));
		awaitKeptWaiting(store, "approvals:t-two-waits", Duration.ofSeconds(9));
		assertThat(signal(instance, "t-two-waits", new Approval(true, "later"), "s-two")).as("18 s after the seal")
			.isEqualTo(SignalOutcome.RESUMED);

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-two-waits") != null);
		assertThat(handler.result("t-two-waits")).endsWith("approved by later");
		assertThat(handler.runs("bulk")).isEqualTo(5);
	}

	/**
	 * Asserts that a waiting record stays WAITING, with the first step sealed before its wait, for as
	 * long as {@code spell} (past {@code completed-ttl}, 3 s, and the stores' expiry), read every
	 * half second: a store that expired it meanwhile fails the test at once.
	 */
	private static void awaitKeptWaiting(IdempotencyStore store, String storeKey, Duration spell) {
		await(storeKey + " stays WAITING with its sealed first step for " + spell).during(spell)
			.atMost(spell.plusSeconds(5))
			.pollInterval(Duration.ofMillis(500))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null
					&& record.state() == RecordState.WAITING && record.journal().find("bulk-0").isPresent());
	}

	/** When a WAITING record's wait ends: the instant its summary ends with ({@code ... until <instant>}). */
	protected static Instant endOfWait(IdempotencyRecord waiting) {
		String summary = waiting.resultSummary();
		return Instant.parse(summary.substring(summary.lastIndexOf(' ') + 1));
	}

	/** Awaits as many outcomes as expected (one is reported after its ack), then compares them. */
	private static void assertOutcomes(Instance instance, DeliveryOutcome... expected) {
		await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes().size() >= expected.length);
		assertThat(instance.recorder().outcomes()).containsExactly(expected);
	}

	protected void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

	protected SignalOutcome signal(Instance instance, String taskId, Approval approval, String signalId) {
		return instance.bean(ExactlyOnceSignals.class).signal("approvals", taskId, "approval", approval, signalId);
	}

	protected IdempotencyRecord awaitState(Instance instance, String taskId, RecordState state) {
		return awaitRecord(instance, "approvals:" + taskId, state);
	}

	protected IdempotencyRecord awaitRecord(Instance instance, String storeKey, RecordState state) {
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		return await().atMost(Duration.ofSeconds(30))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store.find(storeKey).orElse(null), (record) -> record != null && record.state() == state);
	}

}
