package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A child task's listener, on consumer {@code crew} keyed by message id (enabled by
 * {@code test.children.child=true}): commits {@code work-<parent>-<n>} to the {@link Ledger} under its
 * key (its side effect, in a step) and returns {@link Output}. The children whose number is in
 * {@code test.children.failing} throw (until {@link #fix(int)}); those in {@code test.children.held}
 * await the signal {@code go} first; with {@code test.children.child-nap} each sleeps that long first.
 */
@ConditionalOnProperty("test.children.child")
public class CrewTaskHandler {

	private final Set<Integer> failing = ConcurrentHashMap.newKeySet();

	private final Set<Integer> held = ConcurrentHashMap.newKeySet();

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final Ledger ledger;

	private final Duration nap;

	public CrewTaskHandler(Ledger ledger, Environment environment) {
		this.ledger = ledger;
		this.nap = environment.getProperty("test.children.child-nap", Duration.class);
		for (Integer n : environment.getProperty("test.children.failing", Integer[].class, new Integer[0])) {
			this.failing.add(n);
		}
		for (Integer n : environment.getProperty("test.children.held", Integer[].class, new Integer[0])) {
			this.held.add(n);
		}
	}

	@ExactlyOnceListener(consumer = "crew")
	public Output handle(Work work, ExactlyOnceContext context) {
		this.runs.computeIfAbsent(context.key(), (key) -> new AtomicInteger()).incrementAndGet();
		if (this.nap != null) {
			context.sleep("nap", this.nap);
		}
		if (this.held.contains(work.number())) {
			context.awaitSignal("go", String.class, Duration.ofHours(1));
		}
		if (this.failing.contains(work.number())) {
			throw new IllegalArgumentException("child " + work.number() + " cannot do its work");
		}
		String value = context.step("work", String.class, () -> {
			String done = "work-" + work.parent() + "-" + work.number();
			this.ledger.commit(context.key(), done);
			return done;
		});
		return new Output(value);
	}

	/**
	 * How often this instance ran the handler for a child (attempts that replayed their steps included).
	 * @param key the child's key
	 * @return the runs
	 */
	public int runsOf(String key) {
		AtomicInteger count = this.runs.get(key);
		return (count != null) ? count.get() : 0;
	}

	/** Lets a failing child succeed from now on. */
	public void fix(int number) {
		this.failing.remove(number);
	}

	/**
	 * A child's work.
	 * @param parent the parent task's id
	 * @param number the child's number
	 */
	public record Work(String parent, int number) {
	}

	/**
	 * What a child returns.
	 * @param value what it did
	 */
	public record Output(String value) {
	}

}
