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
 * {@code draft}. Counts every action and probe run.
 */
@ConditionalOnProperty("test.steps.enabled")
public class SteppedTaskHandler {

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final Map<String, String> repository = new ConcurrentHashMap<>();

	private final List<String> committedDrafts = new CopyOnWriteArrayList<>();

	private final List<String> interruptedSteps = new CopyOnWriteArrayList<>();

	private final boolean probe;

	private final String failOnceAt;

	private final int draftPadding;

	private final boolean draftTwice;

	public SteppedTaskHandler(@Value("${test.steps.probe:false}") boolean probe,
			@Value("${test.steps.fail-once-at:}") String failOnceAt,
			@Value("${test.steps.draft-padding:0}") int draftPadding,
			@Value("${test.steps.draft-twice:false}") boolean draftTwice) {
		this.probe = probe;
		this.failOnceAt = failOnceAt;
		this.draftPadding = draftPadding;
		this.draftTwice = draftTwice;
	}

	@ExactlyOnceListener(consumer = "steps", key = "payload.taskId")
	public String handle(TaskAssignment task, ExactlyOnceContext context) {
		context.previousAttempt().flatMap(PreviousAttempt::lastStep).ifPresent(this.interruptedSteps::add);
		String draft = context.step("draft", String.class,
				() -> run("draft", "draft " + UUID.randomUUID() + " ".repeat(this.draftPadding)));
		if (this.draftTwice) {
			context.step("draft", String.class, () -> run("draft", "second draft"));
		}
		String sha = this.probe
				? context.step("commit", String.class, () -> commit(task, draft), () -> findCommit(task))
				: context.step("commit", String.class, () -> commit(task, draft));
		context.step("notify", String.class, () -> run("notify", "notified " + sha));
		context.publish("agents.devops.tasks.deploy", Map.of("taskId", task.taskId(), "sha", sha));
		return sha;
	}

	private String commit(TaskAssignment task, String draft) {
		String sha = run("commit", "sha-" + Integer.toHexString(draft.hashCode()));
		this.repository.put(task.taskId(), sha);
		this.committedDrafts.add(draft);
		return sha;
	}

	private Optional<String> findCommit(TaskAssignment task) {
		run("probe", null);
		return Optional.ofNullable(this.repository.get(task.taskId()));
	}

	private <T> T run(String step, T result) {
		int run = this.runs.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
		if (step.equals(this.failOnceAt) && run == 1) {
			throw new IllegalStateException("simulated failure of step " + step);
		}
		return result;
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

	/** The drafts committed, in order. */
	public List<String> committedDrafts() {
		return List.copyOf(this.committedDrafts);
	}

}
