package dev.exactlyonce.testapp;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.store.PreviousAttempt;

/**
 * A listener written with durable steps, on consumer {@code steps} (enabled by
 * {@code test.steps.enabled=true}): {@code draft} (a new random text on every run, like a model
 * call), {@code commit} (records the draft in an in-memory repository; with
 * {@code test.steps.probe=true} its probe looks the task's commit up there), {@code notify}, then a
 * follow-up published to {@code agents.devops.tasks.deploy}. The step named by
 * {@code test.steps.fail-once-at} throws on its first run; {@code test.steps.draft-padding} makes the
 * draft that many characters longer; {@code test.steps.draft-twice} runs a second step named
 * {@code draft}; {@code test.steps.hang-after-commit} makes the commit step wait, deaf to interrupts,
 * at the {@link Ledger}'s gate after its side effect; {@code test.steps.outline} adds a step
 * {@code outline} with a generic result; {@code test.steps.opaque-draft} makes the draft an object
 * Jackson finds no property of; {@code test.steps.null-probe} makes the probe return {@code null};
 * {@code test.steps.commit-padding} makes the commit's result that many characters longer;
 * {@code test.steps.pause-after-draft} makes the handler wait at the {@link Ledger}'s gate between
 * the draft and the commit, outside any step; {@code test.steps.fail-once-after} names a step after
 * which the first run throws, outside any step.
 * Commits go to the {@link Ledger}, shared by all instances. Counts every action and probe run.
 */
@ConditionalOnProperty("test.steps.enabled")
public class SteppedTaskHandler {

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final List<String> committedDrafts = new CopyOnWriteArrayList<>();

	private final List<String> interruptedSteps = new CopyOnWriteArrayList<>();

	private final List<List<String>> outlines = new CopyOnWriteArrayList<>();

	private final boolean probe;

	private final String failOnceAt;

	private final int draftPadding;

	private final boolean draftTwice;

	private final Ledger ledger;

	private final Environment environment;

	public SteppedTaskHandler(Ledger ledger, Environment environment, @Value("${test.steps.probe:false}") boolean probe,
			@Value("${test.steps.fail-once-at:}") String failOnceAt,
			@Value("${test.steps.draft-padding:0}") int draftPadding,
			@Value("${test.steps.draft-twice:false}") boolean draftTwice) {
		this.ledger = ledger;
		this.environment = environment;
		this.probe = probe;
		this.failOnceAt = failOnceAt;
		this.draftPadding = draftPadding;
		this.draftTwice = draftTwice;
	}

	@ExactlyOnceListener(consumer = "steps", key = "payload.taskId")
	public String handle(TaskAssignment task, ExactlyOnceContext context) {
		context.previousAttempt().flatMap(PreviousAttempt::lastStep).ifPresent(this.interruptedSteps::add);
		if (option("opaque-draft")) {
			context.step("draft-object", OpaqueDraft.class, () -> run("draft", new OpaqueDraft("draft " + UUID.randomUUID())));
		}
		String draft = context.step("draft", String.class,
				() -> run("draft", "draft " + UUID.randomUUID() + " ".repeat(this.draftPadding)));
		pauseOrFailAfter("draft");
		if (option("outline")) {
			List<String> outline = context.step("outline", new ParameterizedTypeReference<List<String>>() {
			}, () -> run("outline", List.of("intro", draft)));
			this.outlines.add(outline);
		}
		if (this.draftTwice) {
			context.step("draft", String.class, () -> run("draft", "second draft"));
		}
		String sha = this.probe
				? context.step("commit", String.class, () -> commit(task, draft), () -> findCommit(task))
				: context.step("commit", String.class, () -> commit(task, draft));
		context.step("notify", String.class, () -> run("notify", "notified " + sha));
		pauseOrFailAfter("notify");
		context.publish("agents.devops.tasks.deploy", Map.of("taskId", task.taskId(), "sha", sha));
		return sha;
	}

	private String commit(TaskAssignment task, String draft) {
		String sha = run("commit", "sha-" + Integer.toHexString(draft.hashCode())
				+ "-".repeat(this.environment.getProperty("test.steps.commit-padding", Integer.class, 0)));
		this.ledger.commit(task.taskId(), sha);
		this.committedDrafts.add(draft);
		if (option("hang-after-commit")) {
			this.ledger.passGateUninterruptibly();
		}
		return sha;
	}

	private void pauseOrFailAfter(String step) {
		if (step.equals("draft") && option("pause-after-draft")) {
			this.ledger.passGateUninterruptibly();
		}
		if (step.equals(this.environment.getProperty("test.steps.fail-once-after")) && runs("after-" + step) == 0) {
			run("after-" + step, null);
			throw new IllegalStateException("simulated failure after step " + step);
		}
	}

	private Optional<String> findCommit(TaskAssignment task) {
		run("probe", null);
		if (option("null-probe")) {
			return null;
		}
		List<String> commits = this.ledger.commitsOf(task.taskId());
		return commits.isEmpty() ? Optional.empty() : Optional.of(commits.get(commits.size() - 1));
	}

	private boolean option(String name) {
		return this.environment.getProperty("test.steps." + name, Boolean.class, false);
	}

	private <T> T run(String step, T result) {
		int run = this.runs.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
		if (step.equals(this.failOnceAt) && run == 1) {
			throw new IllegalStateException("simulated failure of step " + step);
		}
		return result;
	}

	/** A draft with a private field and no getter: Jackson finds nothing to write. */
	public static final class OpaqueDraft {

		private final String text;

		OpaqueDraft(String text) {
			this.text = text;
		}

		@Override
		public String toString() {
			return this.text;
		}

	}

	/** How many times a step's action (or {@code probe}) ran. */
	public int runs(String step) {
		AtomicInteger count = this.runs.get(step);
		return (count != null) ? count.get() : 0;
	}

	/** The steps earlier attempts left unfinished, as each run saw them. */
	public List<String> interruptedSteps() {
		return List.copyOf(this.interruptedSteps);
	}

	/** The outlines each run got from its {@code outline} step, in order. */
	public List<List<String>> outlines() {
		return List.copyOf(this.outlines);
	}

	/** The drafts committed, in order. */
	public List<String> committedDrafts() {
		return List.copyOf(this.committedDrafts);
	}

}
