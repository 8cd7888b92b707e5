package dev.exactlyonce.testapp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A child task's listener on consumer {@code crew} (enabled by {@code test.children.sealed=true},
 * instead of {@link CrewTaskHandler}) whose declared return type is a sealed interface, as many
 * handlers declare their outcomes: Jackson writes its {@link Done} but cannot read JSON back as
 * {@link Outcome} (no type information). Its JSON has the shape of {@link CrewTaskHandler.Output}.
 * Also a child that returns nothing, on consumer {@code posts} ({@code void}, its result JSON
 * {@code null}), for a parent started with {@code test.children.posts=true}.
 */
@ConditionalOnProperty("test.children.sealed")
public class SealedOutcomeTaskHandler {

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final Ledger ledger;

	public SealedOutcomeTaskHandler(Ledger ledger) {
		this.ledger = ledger;
	}

	@ExactlyOnceListener(consumer = "crew")
	public Outcome handle(CrewTaskHandler.Work work, ExactlyOnceContext context) {
		this.runs.computeIfAbsent(context.key(), (key) -> new AtomicInteger()).incrementAndGet();
		String value = context.step("work", String.class, () -> {
			String done = "work-" + work.parent() + "-" + work.number();
			this.ledger.commit(context.key(), done);
			return done;
		});
		return new Done(value);
	}

	@ExactlyOnceListener(consumer = "posts", key = "payload.taskId")
	public void post(TaskAssignment task, ExactlyOnceContext context) {
		this.runs.computeIfAbsent(context.key(), (key) -> new AtomicInteger()).incrementAndGet();
		context.step("post", String.class, () -> {
			this.ledger.commit(context.key(), "post for " + task.taskId());
			return task.taskId();
		});
	}

	/**
	 * How often this instance ran the handler for a child.
	 * @param key the child's key
	 * @return the runs
	 */
	public int runsOf(String key) {
		AtomicInteger count = this.runs.get(key);
		return (count != null) ? count.get() : 0;
	}

	/** What a child did. */
	public sealed interface Outcome permits Done {

	}

	/**
	 * A child that did its work.
	 * @param value what it did
	 */
	public record Done(String value) implements Outcome {
	}

}
