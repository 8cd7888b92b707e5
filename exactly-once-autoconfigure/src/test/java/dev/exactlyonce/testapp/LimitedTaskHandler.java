package dev.exactlyonce.testapp;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.StepOptions;

/**
 * Listeners under limits (enabled by {@code test.limits.enabled=true}): {@code deploys} runs every
 * task under limit {@code deploys}, keyed by the task's {@code assignee} (its service), working
 * {@code test.limits.work} (100ms by default); {@code calls} runs a step {@code prepare}, then a step
 * {@code call} under limit {@code calls}. What they saw is kept in static fields, shared by every
 * instance of the JVM, so that it is measured across instances: the tasks of a service running at
 * once (and the most ever), the order tasks started in, when each {@code call} ran.
 */
@ConditionalOnProperty("test.limits.enabled")
public class LimitedTaskHandler {

	private static final Map<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();

	private static final Map<String, AtomicInteger> MOST_RUNNING = new ConcurrentHashMap<>();

	private static final Map<String, List<String>> STARTS = new ConcurrentHashMap<>();

	private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

	private static final List<Instant> CALLS = new CopyOnWriteArrayList<>();

	private final Environment environment;

	public LimitedTaskHandler(Environment environment) {
		this.environment = environment;
	}

	@ExactlyOnceListener(consumer = "deploys", key = "payload.taskId", limit = "deploys", limitKey = "payload.assignee")
	public void deploy(TaskAssignment task) throws InterruptedException {
		String service = task.assignee();
		int running = RUNNING.computeIfAbsent(service, (name) -> new AtomicInteger()).incrementAndGet();
		MOST_RUNNING.computeIfAbsent(service, (name) -> new AtomicInteger()).accumulateAndGet(running, Math::max);
		STARTS.computeIfAbsent(service, (name) -> new CopyOnWriteArrayList<>()).add(task.taskId());
		try {
			Thread.sleep(this.environment.getProperty("test.limits.work", Duration.class, Duration.ofMillis(100))
				.toMillis());
		}
		finally {
			RUNNING.get(service).decrementAndGet();
		}
	}

	@ExactlyOnceListener(consumer = "calls", key = "payload.taskId")
	public String call(TaskAssignment task, ExactlyOnceContext context) {
		context.step("prepare", String.class, () -> count("prepare"));
		return context.step("call", String.class, () -> {
			CALLS.add(Instant.now());
			return count("call");
		}, StepOptions.limit("calls"));
	}

	private static String count(String step) {
		return step + " " + RUNS.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
	}

	/** Forgets what was seen (each test starts afresh). */
	public static void reset() {
		RUNNING.clear();
		MOST_RUNNING.clear();
		STARTS.clear();
		RUNS.clear();
		CALLS.clear();
	}

	/** The most tasks of a service that ever ran at once. */
	public static int mostRunning(String service) {
		AtomicInteger most = MOST_RUNNING.get(service);
		return (most != null) ? most.get() : 0;
	}

	/** The tasks of a service, in the order they started. */
	public static List<String> starts(String service) {
		return List.copyOf(STARTS.getOrDefault(service, List.of()));
	}

	/** How many times a step's action ran. */
	public static int runs(String step) {
		AtomicInteger runs = RUNS.get(step);
		return (runs != null) ? runs.get() : 0;
	}

	/** When each {@code call} step's action ran. */
	public static List<Instant> calls() {
		return List.copyOf(CALLS);
	}

}
