package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.actuate.ExactlyOnceMeters;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.listener.StepInterruptedException;
import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.testapp.SteppedTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * A handler written with durable steps resumes where an earlier attempt stopped instead of redoing
 * its finished work: after a failure, after a crash inside a step (resolved by a probe, by the
 * retry policy, or parked by the dead-letter policy), and its follow-up publish is stored once.
 */
@ExtendWith(OutputCaptureExtension.class)
class DurableStepsIntegrationTests extends NatsIntegrationTestSupport {

	private static final String DEPLOYS = "agents.devops.tasks.deploy";

	private static final String PUBLISH_STEP = "publish:" + DEPLOYS;

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.steps.enabled", "true")
			.with("exactlyonce.consumers.steps.stream", "TASKS")
			.with("exactlyonce.consumers.steps.filter-subject", "agents.steps.tasks.>")
			.with("exactlyonce.consumers.steps.ack-wait", "2s")
			.with("exactlyonce.consumers.steps.retry-delay", "1s")
			.with("exactlyonce.store.lease", "3s");
	}

	@Test
	void aRetryAfterAFailedStepReplaysTheFinishedStepsAndRunsOnlyTheRest() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.fail-once-at=notify");

		runToCompletion(instance, "t-failed-step");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.runs("commit")).as("commits").isEqualTo(1);
		assertThat(handler.runs("notify")).isEqualTo(2);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED, DeliveryOutcome.PROCESSED);
		assertThat(journal(instance, "t-failed-step")).extracting(StepRecord::name, StepRecord::state,
				StepRecord::attempt)
			.containsExactly(tuple("draft", StepState.DONE, 1), tuple("commit", StepState.DONE, 1),
					tuple("notify", StepState.DONE, 2), tuple(PUBLISH_STEP, StepState.DONE, 2));
		assertThat(deploys()).singleElement()
			.satisfies((deploy) -> assertThat(new String(deploy.getData())).contains(committedSha(handler)));
		assertThat(steps(instance, "executed")).isEqualTo(4);
		assertThat(steps(instance, "replayed")).isEqualTo(2);
	}

	@Test
	void aCrashAfterAStepsSideEffectIsResolvedByItsProbeWithoutRunningTheStepAgain(CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a", "test.steps.probe=true");
		crashAfterTheSideEffectOfStep(instance, 2);

		runToCompletion(instance, "t-probed");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.runs("commit")).as("commits").isEqualTo(1);
		assertThat(handler.runs("probe")).isEqualTo(1);
		assertThat(handler.interruptedSteps()).containsExactly("commit");
		assertThat(journal(instance, "t-probed")).extracting(StepRecord::name, StepRecord::state, StepRecord::attempt)
			.containsExactly(tuple("draft", StepState.DONE, 1), tuple("commit", StepState.DONE, 2),
					tuple("notify", StepState.DONE, 2), tuple(PUBLISH_STEP, StepState.DONE, 2));
		assertThat(deploys()).hasSize(1);
		assertThat(steps(instance, "probe_found")).isEqualTo(1);
		assertThat(steps(instance, "replayed")).isEqualTo(1);
		assertThat(output).containsPattern("INFO .*Took over the abandoned claim on key 't-probed' \\(message at stream "
				+ "'TASKS', consumer 'steps', sequence 1, delivery \\d\\): the attempt of 'a#1', started \\S+, died "
				+ "mid-work \\(its lease ran out without a completion\\); it runs again \\(on-abandoned: retry\\)")
			.containsPattern("INFO .*Step 'commit' of key 't-probed' \\(message at stream 'TASKS', consumer 'steps', "
					+ "sequence 1, delivery \\d\\) was left unfinished by the previous attempt of 'a#1'; its probe found "
					+ "its result: journaled, the step does not run again")
			.doesNotContain("has no probe");
	}

	@Test
	void aCrashWhoseRedeliveriesAllMeetTheDeadHoldersLeaseResumesInsteadOfDeadLettering() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.probe=true", "exactlyonce.store.lease=10s",
				"exactlyonce.consumers.steps.max-deliver=3");
		crashAfterTheSideEffectOfStep(instance, 2);

		runToCompletion(instance, "t-resumed");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(this.instances.ledger().commitsOf("t-resumed")).as("commits").hasSize(1);
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.interruptedSteps()).containsExactly("commit");
		assertThat(instance.recorder().outcomes()).doesNotContain(DeliveryOutcome.DEAD_LETTERED)
			.contains(DeliveryOutcome.IN_PROGRESS_ELSEWHERE, DeliveryOutcome.RETRIED);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps")).isEmpty();
		}
		assertThat(record(instance, "t-resumed").attempts()).isEqualTo(2);
	}

	@Test
	void aRequeuedCopyThatRunsOutOfDeliveriesWithoutAClaimIsRequeuedAgainAndTheTaskResumes() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.probe=true",
				"exactlyonce.consumers.steps.max-deliver=3");
		crashAfterTheSideEffectOfStep(instance, 2);
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.steps.tasks.blog-post", TaskAssignment.of("t-requeued"), "t-requeued");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.instances.ledger().commitsOf("t-requeued").size() == 1);
		instance.storeFaults().failClaims(true);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(120)).until(() -> probe.messages("TASKS", "agents.steps.tasks.blog-post")
				.stream()
				.anyMatch((copy) -> copy.getSeq() > 2));
		}
		instance.storeFaults().failClaims(false);

		await().atMost(Duration.ofSeconds(60)).until(() -> record(instance, "t-requeued").state() == RecordState.COMPLETED);
		assertThat(this.instances.ledger().commitsOf("t-requeued")).as("commits").hasSize(1);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps")).isEmpty();
		}
	}

	@Test
	void aStepWhoseResultWasRejectedIsProbedWhenItsTaskIsReplayed() throws Exception {
		Instance capped = this.instances.start("capped", "test.steps.probe=true", "test.steps.commit-padding=2000",
				"exactlyonce.steps.max-result-size=1KB");
		String message = deadLetterExceptionMessage(capped, "t-rejected");
		assertThat(message).contains("Result of step 'commit'", "max-result-size");
		assertThat(journal(capped, "t-rejected")).extracting(StepRecord::name, StepRecord::state)
			.contains(tuple("commit", StepState.STARTED));
		DeadLetterOperations deadLetters = capped.bean(DeadLetterOperations.class);
		long letter = deadLetters.list("steps", 1, 10).get(0).sequence();
		capped.context().close();

		Instance raised = this.instances.start("raised", "test.steps.probe=true", "test.steps.commit-padding=2000");
		raised.bean(DeadLetterOperations.class).replay("steps", letter, "ops", "raised max-result-size");

		await().atMost(Duration.ofSeconds(30)).until(() -> record(raised, "t-rejected").state() == RecordState.COMPLETED);
		SteppedTaskHandler handler = raised.bean(SteppedTaskHandler.class);
		assertThat(this.instances.ledger().commitsOf("t-rejected")).as("commits").hasSize(1);
		assertThat(handler.runs("probe")).isEqualTo(1);
		assertThat(handler.runs("commit")).isZero();
	}

	@Test
	void withoutAProbeTheRetryPolicyRunsOnlyTheInterruptedStepAgainWithTheFirstDraft(CapturedOutput output)
			throws Exception {
		Instance instance = this.instances.start("a");
		crashAfterTheSideEffectOfStep(instance, 2);

		runToCompletion(instance, "t-rerun");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("draft")).as("model calls").isEqualTo(1);
		assertThat(handler.runs("commit")).as("commits, the interrupted one run again").isEqualTo(2);
		assertThat(handler.committedDrafts()).hasSize(2).containsOnly(handler.committedDrafts().get(0));
		assertThat(deploys()).hasSize(1);
		assertThat(output).containsPattern("INFO .*Took over the abandoned claim on key 't-rerun'");
		assertThat(output.getAll().lines().filter((line) -> line.contains("has no probe")))
			.as("one warning for the one step run again").singleElement().satisfies((line) -> assertThat(line)
				.containsPattern("WARN .*Step 'commit' of key 't-rerun' \\(message at stream 'TASKS', consumer "
						+ "'steps', sequence 1, delivery \\d\\) was started by the previous attempt of 'a#1', which "
						+ "never finished it, and the step has no probe: it runs again \\(on-abandoned: retry\\), so "
						+ "its side effect may happen twice. Give the step a probe that finds its result "
						+ "\\(context.step\\(name, type, action, probe\\)\\), or set "
						+ "exactlyonce.consumers.steps.on-abandoned=dead-letter to park such tasks for a person"));
	}

	@Test
	void withoutAProbeTheDeadLetterPolicyParksATaskInterruptedMidStep() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.consumers.steps.on-abandoned=dead-letter");
		crashAfterTheSideEffectOfStep(instance, 2);
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.steps.tasks.blog-post", TaskAssignment.of("t-parked"), "t-parked");

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps").size() == 1
						&& probe.drained("TASKS", "steps"));
			assertThat(probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps").get(0).getHeaders()
				.getFirst("Exactly-Once-Exception")).isEqualTo(StepInterruptedException.class.getName());
		}
		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("draft")).isEqualTo(1);
		assertThat(handler.runs("commit")).isEqualTo(1);
		assertThat(record(instance, "t-parked").state()).isEqualTo(RecordState.DEAD_LETTERED);
		assertThat(deploys()).isEmpty();
	}

	@Test
	void aPublishStepRunAgainAfterACrashIsStoredOnce() throws Exception {
		Instance instance = this.instances.start("a");
		crashAfterTheSideEffectOfStep(instance, 4);

		runToCompletion(instance, "t-published");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("draft")).isEqualTo(1);
		assertThat(handler.runs("commit")).isEqualTo(1);
		assertThat(handler.runs("notify")).isEqualTo(1);
		StepRecord published = journal(instance, "t-published").get(3);
		assertThat(deploys()).singleElement().satisfies((deploy) -> assertThat(
				deploy.getHeaders().getFirst("Nats-Msg-Id")).isEqualTo("steps:t-published/" + PUBLISH_STEP + "/"
						+ published.origin()));
		assertThat(published.attempt()).isEqualTo(2);
		assertThat(published.origin()).as("the first attempt's claim").isNotEqualTo(record(instance, "t-published").token());
		assertThat(published.result()).contains("\"duplicate\":true");
	}

	@Test
	void aResubmittedTaskPublishesItsFollowUpAgainWithTheNewResult() throws Exception {
		Instance instance = this.instances.start("a");
		runToCompletion(instance, "t-resubmitted");

		instance.bean(ExactlyOncePublisher.class)
			.resubmit("steps", "t-resubmitted", "agents.steps.tasks.blog-post", TaskAssignment.of("t-resubmitted"),
					"ops", "wrong draft");

		await().atMost(Duration.ofSeconds(30)).until(() -> deploys().size() == 2);
		List<String> commits = this.instances.ledger().commitsOf("t-resubmitted");
		assertThat(commits).hasSize(2).doesNotHaveDuplicates();
		List<MessageInfo> deploys = deploys();
		assertThat(new String(deploys.get(1).getData())).contains(commits.get(1));
		assertThat(deploys).extracting((deploy) -> deploy.getHeaders().getFirst("Nats-Msg-Id")).doesNotHaveDuplicates();
	}

	@Test
	void aStepStartedByAnAttemptReleasedAtShutdownIsProbedByTheNextInstance() throws Exception {
		this.instances.with("exactlyonce.listener.shutdown-timeout", "1s").with("test.steps.probe", "true");
		Instance leaving = this.instances.start("leaving", "test.steps.hang-after-commit=true");
		this.instances.ledger().close();
		leaving.bean(ExactlyOncePublisher.class)
			.publish("agents.steps.tasks.blog-post", TaskAssignment.of("t-released"), "t-released");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.instances.ledger().commitsOf("t-released").size() == 1);

		leaving.context().close();
		Set<Thread> leavingWorkers = Thread.getAllStackTraces().keySet().stream()
			.filter((thread) -> thread.getName().startsWith("exactlyonce-steps-"))
			.collect(Collectors.toSet());
		Instance next = this.instances.start("next");
		try {
			runToCompletion(next, "t-released", false);
		}
		finally {
			this.instances.ledger().open();
		}
		// the commit step, deaf to interrupts, returns once the gate opens: its DONE entry cannot be
		// written any more (the context closed its connection), and its thread must not retry it
		await("the closed instance's worker thread ends once its handler returns").atMost(Duration.ofSeconds(5))
			.until(() -> leavingWorkers.stream().noneMatch(Thread::isAlive));

		SteppedTaskHandler handler = next.bean(SteppedTaskHandler.class);
		assertThat(this.instances.ledger().commitsOf("t-released")).as("commits").hasSize(1);
		assertThat(handler.runs("probe")).isEqualTo(1);
		assertThat(handler.runs("commit")).isZero();
		assertThat(journal(next, "t-released")).extracting(StepRecord::name, StepRecord::state)
			.startsWith(tuple("draft", StepState.DONE), tuple("commit", StepState.DONE));
	}

	@Test
	void aGenericStepResultIsReplayedAsItsDeclaredType() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.outline=true", "test.steps.fail-once-at=notify");

		runToCompletion(instance, "t-outlined");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("outline")).isEqualTo(1);
		assertThat(handler.outlines()).hasSize(2).containsOnly(handler.outlines().get(0));
		assertThat(handler.outlines().get(0)).first().isEqualTo("intro");
	}

	@Test
	void aResultJacksonCannotWriteDeadLettersAtOnceNamingTheStepAndType() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.opaque-draft=true");

		String message = deadLetterExceptionMessage(instance, "t-opaque");

		assertThat(message).contains("Result of step 'draft-object'", "OpaqueDraft", "cannot be written as JSON",
				"a record").doesNotContain("disable SerializationFeature.FAIL_ON_EMPTY_BEANS");
		assertThat(instance.bean(SteppedTaskHandler.class).runs("draft")).as("paid calls").isEqualTo(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED);
		assertThat(record(instance, "t-opaque").resultSummary()).as("what the task view answers")
			.isEqualTo("handler failed with a non-retryable exception (" + StepRejectedException.class.getName() + ")");
	}

	@Test
	void aProbeReturningNullDeadLettersAtOnceSayingWhatToReturn() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.probe=true", "test.steps.null-probe=true");
		crashAfterTheSideEffectOfStep(instance, 2);

		String message = deadLetterExceptionMessage(instance, "t-null-probe");

		assertThat(message).contains("The probe of step 'commit'", "returned null", "Optional.empty()");
		assertThat(instance.bean(SteppedTaskHandler.class).runs("commit")).isEqualTo(1);
	}

	/**
	 * A step's DONE entry goes to the store with the next step's STARTED: one journal write per step
	 * (four steps: the first STARTED, three DONE + STARTED, the last DONE), and a finished step is
	 * DONE in the store before the next step's action runs. (A delay longer than the test: a cold JVM
	 * can spend more than the default 10 ms between two steps, and the timer would journal a DONE alone.)
	 */
	@Test
	void eachStepCostsOneJournalWriteItsDoneEntryGoingWithTheNextStepsStart() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.steps.done-delay=1h");
		List<List<StepRecord>> seenByCommit = new CopyOnWriteArrayList<>();
		AtomicInteger performed = new AtomicInteger();
		instance.recorder().runAt(PipelinePoint.STEP_PERFORMED, () -> {
			if (performed.incrementAndGet() == 2) {
				seenByCommit.add(journal(instance, "t-coalesced"));
			}
		});

		runToCompletion(instance, "t-coalesced");

		assertThat(seenByCommit).singleElement()
			.satisfies((journal) -> assertThat(journal).extracting(StepRecord::name, StepRecord::state)
				.containsExactly(tuple("draft", StepState.DONE), tuple("commit", StepState.STARTED)));
		assertThat(journal(instance, "t-coalesced")).extracting(StepRecord::state).containsOnly(StepState.DONE);
		assertThat(stepWrites(instance)).isEqualTo(5);
	}

	@Test
	void withoutADoneDelayEveryEntryIsAWriteOfItsOwn() throws Exception {
		Instance instance = this.instances.start("a", "exactlyonce.steps.done-delay=0s");

		runToCompletion(instance, "t-one-by-one");

		assertThat(journal(instance, "t-one-by-one")).hasSize(4).extracting(StepRecord::state).containsOnly(StepState.DONE);
		assertThat(stepWrites(instance)).isEqualTo(8);
	}

	/** Work outside steps does not keep the step before it unjournaled for longer than the delay. */
	@Test
	void aFinishedStepIsJournaledWithinTheDoneDelayWhileTheHandlerWorksBeforeItsNextStep() throws Exception {
		this.instances.ledger().close();
		try {
			Instance instance = this.instances.start("a", "test.steps.pause-after-draft=true");
			instance.bean(ExactlyOncePublisher.class)
				.publish("agents.steps.tasks.blog-post", TaskAssignment.of("t-paused"), "t-paused");

			await().atMost(Duration.ofSeconds(10))
				.until(() -> instance.bean(IdempotencyStore.class).find("steps:t-paused")
					.map((record) -> record.journal().find("draft").map(StepRecord::state).orElse(null))
					.orElse(null) == StepState.DONE);
			assertThat(instance.bean(SteppedTaskHandler.class).runs("commit")).as("paused before the commit").isZero();
			this.instances.ledger().open();
			runToCompletion(instance, "t-paused", false);
		}
		finally {
			this.instances.ledger().open();
		}
	}

	/** With a delay longer than the test, only the handler's way out can have journaled the step. */
	@Test
	void aHandlerThatFailsRightAfterAStepJournalsItSoTheRetryReplaysIt() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.fail-once-after=notify",
				"exactlyonce.steps.done-delay=1h");

		runToCompletion(instance, "t-fails-after");

		SteppedTaskHandler handler = instance.bean(SteppedTaskHandler.class);
		assertThat(handler.runs("notify")).isEqualTo(1);
		assertThat(handler.runs("commit")).as("commits").isEqualTo(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED, DeliveryOutcome.PROCESSED);
		assertThat(journal(instance, "t-fails-after")).extracting(StepRecord::name, StepRecord::attempt)
			.containsExactly(tuple("draft", 1), tuple("commit", 1), tuple("notify", 1), tuple(PUBLISH_STEP, 2));
	}

	/**
	 * The timer's one attempt to journal a held DONE entry fails (a store blip): the entry must still
	 * reach the store within a few delays while the handler works outside steps, so that an attempt
	 * cut off meanwhile (here, released at shutdown) does not leave a finished, paid step unfinished
	 * for the next attempt to run again.
	 */
	@Test
	void aFinishedStepWhoseTimedWriteFailedOnceIsNotRunAgainByTheNextAttempt() throws Exception {
		this.instances.with("exactlyonce.listener.shutdown-timeout", "1s");
		Instance leaving = this.instances.start("leaving", "test.steps.pause-after-draft=true");
		this.instances.ledger().close();
		leaving.storeFaults().failOneStepWriteAfter(1); // the draft's STARTED passes, the timer's DONE fails
		leaving.bean(ExactlyOncePublisher.class)
			.publish("agents.steps.tasks.blog-post", TaskAssignment.of("t-blip"), "t-blip");
		await().atMost(Duration.ofSeconds(10)).until(() -> leaving.storeFaults().failedStepWrites() == 1);
		SteppedTaskHandler leavingHandler = leaving.bean(SteppedTaskHandler.class);

		leaving.context().close();
		Instance next = this.instances.start("next");
		try {
			runToCompletion(next, "t-blip", false);
		}
		finally {
			this.instances.ledger().open();
		}

		assertThat(leavingHandler.runs("draft")).isEqualTo(1);
		assertThat(next.bean(SteppedTaskHandler.class).runs("draft")).as("paid model calls on the next attempt")
			.isZero();
	}

	@Test
	void observersAreToldTheNameOfEachStepWhoseActionReturned() throws Exception {
		Instance instance = this.instances.start("a");

		runToCompletion(instance, "t-observed");

		assertThat(instance.recorder().performedSteps()).containsExactly("draft", "commit", "notify", PUBLISH_STEP);
		assertThat(instance.recorder().count(PipelinePoint.STEP_PERFORMED)).isEqualTo(4);
	}

	@Test
	void aResultAboveTheSizeCapDeadLettersAtOnceWithoutPayingForTheStepAgain() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.draft-padding=2000",
				"exactlyonce.steps.max-result-size=1KB");

		String message = deadLetterExceptionMessage(instance, "t-oversized");

		assertThat(message).contains("Result of step 'draft'", "exactlyonce.steps.max-result-size (1024 bytes)",
				"store large outputs elsewhere and journal a reference");
		assertThat(instance.bean(SteppedTaskHandler.class).runs("draft")).as("paid calls").isEqualTo(1);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.DEAD_LETTERED);
		assertThat(journal(instance, "t-oversized")).as("its action ran: left to be probed, never taken as failed")
			.extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.STARTED));
	}

	@Test
	void aStepNameRepeatedInOneRunFailsLoudly() throws Exception {
		Instance instance = this.instances.start("a", "test.steps.draft-twice=true");

		String message = deadLetterExceptionMessage(instance, "t-repeated");

		assertThat(message).contains("Step or wait 'draft' ran twice in one run of listener", "SteppedTaskHandler");
		assertThat(instance.bean(SteppedTaskHandler.class).runs("draft")).isEqualTo(1);
	}

	private String deadLetterExceptionMessage(Instance instance, String taskId) throws Exception {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.steps.tasks.blog-post", TaskAssignment.of(taskId), taskId);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps").size() == 1);
			// the outcome is reported after the dead letter was published and the message terminated
			await().atMost(Duration.ofSeconds(10)).until(() -> !instance.recorder().outcomes().isEmpty());
			return probe.messages("DEAD_LETTERS", "deadletter.TASKS.steps").get(0).getHeaders()
				.getFirst("Exactly-Once-Exception-Message");
		}
	}

	/** Halts the pipeline (as a crash would) right after the side effect of the n-th step run. */
	private static void crashAfterTheSideEffectOfStep(Instance instance, int step) {
		AtomicInteger performed = new AtomicInteger();
		instance.recorder().runAt(PipelinePoint.STEP_PERFORMED, () -> {
			if (performed.incrementAndGet() == step) {
				throw new IllegalStateException("simulated crash after the side effect of step " + step);
			}
		});
	}

	private void runToCompletion(Instance instance, String taskId) throws Exception {
		runToCompletion(instance, taskId, true);
	}

	private void runToCompletion(Instance instance, String taskId, boolean publish) throws Exception {
		if (publish) {
			instance.bean(ExactlyOncePublisher.class)
				.publish("agents.steps.tasks.blog-post", TaskAssignment.of(taskId), taskId);
		}
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED)
						&& probe.drained("TASKS", "steps"));
		}
		assertThat(record(instance, taskId).state()).isEqualTo(RecordState.COMPLETED);
	}

	private static IdempotencyRecord record(Instance instance, String taskId) {
		return instance.bean(IdempotencyStore.class).find("steps:" + taskId).orElseThrow();
	}

	private static List<StepRecord> journal(Instance instance, String taskId) {
		return record(instance, taskId).journal().steps();
	}

	private List<MessageInfo> deploys() throws Exception {
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			return probe.messages("TASKS", DEPLOYS);
		}
	}

	private static String committedSha(SteppedTaskHandler handler) {
		return "sha-" + Integer.toHexString(handler.committedDrafts().get(0).hashCode());
	}

	/** The journal writes the store made ({@code recordStep} and {@code recordSteps} calls). */
	private static long stepWrites(Instance instance) {
		return instance.bean(MeterRegistry.class)
			.get(ExactlyOnceMeters.STORE_LATENCY)
			.tag("op", "step")
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
	}

	private static double steps(Instance instance, String outcome) {
		return instance.bean(MeterRegistry.class)
			.get(ExactlyOnceMeters.STEPS)
			.tags("consumer", "steps", "outcome", outcome)
			.counter()
			.count();
	}

}
