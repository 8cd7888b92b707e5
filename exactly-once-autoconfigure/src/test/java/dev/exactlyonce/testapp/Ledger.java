package dev.exactlyonce.testapp;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.exactlyonce.store.PreviousAttempt;

/**
 * An independent record of the test handler's invocations and of its side effects (executions
 * that finished their work), shared by all application instances of a test, plus a gate a test
 * can close to hold handlers mid-work. Also keeps the threads the test handler ran on and the most
 * of its invocations that ran at once.
 */
public class Ledger {

	private final List<Execution> started = new CopyOnWriteArrayList<>();

	private final List<Execution> executions = new CopyOnWriteArrayList<>();

	private final Map<String, Long> firstStartNanos = new ConcurrentHashMap<>();

	private volatile CountDownLatch gate = new CountDownLatch(0);

	private final Set<String> fixed = ConcurrentHashMap.newKeySet();

	private final Map<String, List<String>> commits = new ConcurrentHashMap<>();

	private final Set<Thread> handlerThreads = ConcurrentHashMap.newKeySet();

	private final AtomicInteger running = new AtomicInteger();

	private final AtomicInteger mostRunning = new AtomicInteger();

	void recordStart(Execution attempt) {
		this.firstStartNanos.putIfAbsent(attempt.taskId(), System.nanoTime());
		this.started.add(attempt);
	}

	/** The test handler started on the current thread, until {@link #handlerEnded()}. */
	void handlerStarted() {
		this.handlerThreads.add(Thread.currentThread());
		this.mostRunning.accumulateAndGet(this.running.incrementAndGet(), Math::max);
	}

	void handlerEnded() {
		this.running.decrementAndGet();
	}

	/** The threads the test handler ran on. */
	public Set<Thread> handlerThreads() {
		return Set.copyOf(this.handlerThreads);
	}

	/** The most invocations of the test handler that ran at once. */
	public int mostRunningAtOnce() {
		return this.mostRunning.get();
	}

	void record(Execution execution) {
		this.executions.add(execution);
	}

	/** Every handler invocation, including those that failed or were cut off. */
	public List<Execution> started() {
		return List.copyOf(this.started);
	}

	public long startedOf(String taskId) {
		return this.started.stream().filter((e) -> e.taskId().equals(taskId)).count();
	}

	/** When the handler first started on a task ({@link System#nanoTime()}), or null. */
	public Long firstStartNanos(String taskId) {
		return this.firstStartNanos.get(taskId);
	}

	public List<Execution> executions() {
		return List.copyOf(this.executions);
	}

	public long executionsOf(String taskId) {
		return this.executions.stream().filter((e) -> e.taskId().equals(taskId)).count();
	}

	/** Makes the tasks {@code test.always-failing} lists succeed from now on: the "fix" is deployed. */
	public void fix(String taskId) {
		this.fixed.add(taskId);
	}

	boolean isFixed(String taskId) {
		return this.fixed.contains(taskId);
	}

	/** Records a commit of a task in the repository all instances share: a side effect to count. */
	void commit(String taskId, String sha) {
		this.commits.computeIfAbsent(taskId, (id) -> new CopyOnWriteArrayList<>()).add(sha);
	}

	/** The commits of a task, in order, made by any instance. */
	public List<String> commitsOf(String taskId) {
		return List.copyOf(this.commits.getOrDefault(taskId, List.of()));
	}

	/** Makes handlers wait inside their work until {@link #open()}. */
	public void close() {
		this.gate = new CountDownLatch(1);
	}

	public void open() {
		this.gate.countDown();
	}

	void passGate() throws InterruptedException {
		if (!this.gate.await(2, TimeUnit.MINUTES)) {
			throw new IllegalStateException("Ledger gate never opened");
		}
	}

	/** Waits for {@link #open()} like a blocking socket read would: deaf to interrupts. */
	void passGateUninterruptibly() {
		boolean interrupted = false;
		while (true) {
			try {
				passGate();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * One execution.
	 *
	 * @param taskId the task
	 * @param deliveryCount the delivery it ran on
	 * @param instance the application instance
	 * @param fencingToken the claim token it held
	 * @param previousAttempt the previous attempt it was told about, or null
	 */
	public record Execution(String taskId, long deliveryCount, String instance, String fencingToken,
			PreviousAttempt previousAttempt) {
	}

}
