package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A listener that waits durably, on consumer {@code approvals} (enabled by
 * {@code test.waits.enabled=true}): {@code draft} (a step), with {@code test.waits.bulk-steps} that many steps {@code bulk-<n>} of
 * {@value #BULK_BYTES} characters each (enough of them seal the journal), then with {@code test.waits.nap} a sleep
 * {@code nap} of that duration, then {@code awaitSignal("approval", Approval.class, test.waits.timeout)}
 * (1h by default); approved, it commits to the {@link Ledger} and with {@code test.waits.cool-down}
 * sleeps {@code cool-down}; with {@code test.waits.approval-twice} it awaits {@code approval} a second
 * time; with {@code test.waits.in-step} it awaits {@code approval} inside a step {@code ask};
 * with {@code test.waits.wrapped} a wrapper catches everything the wait throws and rethrows it wrapped;
 * with {@code test.waits.swallowed} the handler catches everything the wait throws and goes on. Its result, also kept per task: {@code committed}, {@code rejected} or {@code timed-out}.
 */
@ConditionalOnProperty("test.waits.enabled")
public class ApprovalTaskHandler {

	/** The length of a {@code bulk-<n>} step's result. */
	public static final int BULK_BYTES = 3000;

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final Map<String, String> results = new ConcurrentHashMap<>();

	private final Map<String, Boolean> sawPreviousAttempt = new ConcurrentHashMap<>();

	private final Ledger ledger;

	private final Environment environment;

	public ApprovalTaskHandler(Ledger ledger, Environment environment) {
		this.ledger = ledger;
		this.environment = environment;
	}

	@ExactlyOnceListener(consumer = "approvals", key = "payload.taskId")
	public String handle(TaskAssignment task, ExactlyOnceContext context) {
		this.sawPreviousAttempt.put(task.taskId(), context.previousAttempt().isPresent());
		String draft = context.step("draft", String.class, () -> run("draft", "draft " + UUID.randomUUID()));
		int bulkSteps = this.environment.getProperty("test.waits.bulk-steps", Integer.class, 0);
		for (int n = 0; n < bulkSteps; n++) {
			String filler = String.valueOf((char) ('a' + n % 26)).repeat(BULK_BYTES);
			context.step("bulk-" + n, String.class, () -> run("bulk", filler));
		}
		Duration nap = this.environment.getProperty("test.waits.nap", Duration.class);
		if (nap != null) {
			context.sleep("nap", nap);
		}
		Duration timeout = this.environment.getProperty("test.waits.timeout", Duration.class, Duration.ofHours(1));
		Optional<Approval> approval;
		if (this.environment.getProperty("test.waits.in-step", Boolean.class, false)) {
			approval = Optional.ofNullable(context.step("ask", Approval.class,
					() -> context.awaitSignal("approval", Approval.class, timeout).orElse(null)));
		}
		else if (this.environment.getProperty("test.waits.swallowed", Boolean.class, false)) {
			approval = swallowed(() -> context.awaitSignal("approval", Approval.class, timeout));
		}
		else if (this.environment.getProperty("test.waits.wrapped", Boolean.class, false)) {
			approval = wrapped(() -> context.awaitSignal("approval", Approval.class, timeout));
		}
		else {
			approval = context.awaitSignal("approval", Approval.class, timeout);
		}
		if (this.environment.getProperty("test.waits.approval-twice", Boolean.class, false)) {
			context.awaitSignal("approval", Approval.class, timeout);
		}
		String result;
		if (approval.isEmpty()) {
			result = "timed-out";
		}
		else if (!approval.get().approved()) {
			result = "rejected by " + approval.get().by();
		}
		else {
			String sha = context.step("commit", String.class, () -> {
				String committed = run("commit", "sha-" + Integer.toHexString(draft.hashCode()));
				this.ledger.commit(task.taskId(), committed);
				return committed;
			});
			Duration coolDown = this.environment.getProperty("test.waits.cool-down", Duration.class);
			if (coolDown != null) {
				context.sleep("cool-down", coolDown);
			}
			result = "committed " + sha + " approved by " + approval.get().by();
		}
		this.results.put(task.taskId(), result);
		return result;
	}

	/** What a careless handler does: catch everything, and go on as if nothing was there. */
	private static <T> Optional<T> swallowed(java.util.function.Supplier<Optional<T>> call) {
		try {
			return call.get();
		}
		catch (Throwable failure) {
			return Optional.empty();
		}
	}

	/** What a library between the handler and its wait may do: catch everything and wrap it. */
	private static <T> T wrapped(java.util.function.Supplier<T> call) {
		try {
			return call.get();
		}
		catch (Throwable failure) {
			throw new IllegalStateException("wrapped by a library", failure);
		}
	}

	private <T> T run(String step, T result) {
		this.runs.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
		return result;
	}

	/** How many times a step's action ran on this instance. */
	public int runs(String step) {
		AtomicInteger count = this.runs.get(step);
		return (count != null) ? count.get() : 0;
	}

	/** Whether the last run of a task on this instance saw a previous attempt, or {@code null}. */
	public Boolean sawPreviousAttempt(String taskId) {
		return this.sawPreviousAttempt.get(taskId);
	}

	/** The result of a task this instance finished, or {@code null}. */
	public String result(String taskId) {
		return this.results.get(taskId);
	}

	/**
	 * A person's answer.
	 * @param approved whether it is approved
	 * @param by who answered
	 */
	public record Approval(boolean approved, String by) {
	}

}
