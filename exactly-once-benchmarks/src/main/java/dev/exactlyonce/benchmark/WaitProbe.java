package dev.exactlyonce.benchmark;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link WaitsBenchmarkApplication}'s listener reports: tasks done without waiting, first
 * arrivals at a wait (a task resumed runs from the top and arrives again), the time from a signal's
 * send to its task running past the wait, and how late a sleep's task ran past it.
 */
final class WaitProbe {

	private final AtomicInteger done = new AtomicInteger();

	private final Map<String, Long> reached = new ConcurrentHashMap<>();

	private final Map<Long, Long> deadlines = new ConcurrentHashMap<>();

	private final Map<String, Long> signalSent = new ConcurrentHashMap<>();

	private final LatencyRecorder signalToReentry;

	private final LatencyRecorder lateness;

	private final AtomicInteger arrived = new AtomicInteger();

	private final AtomicInteger signalled = new AtomicInteger();

	private final AtomicInteger woke = new AtomicInteger();

	WaitProbe(int capacity) {
		this.signalToReentry = new LatencyRecorder(capacity);
		this.lateness = new LatencyRecorder(capacity);
	}

	void finished() {
		this.done.incrementAndGet();
	}

	/** A {@code signal} task arrived at its wait (counted only: this probe holds nothing per waiting task). */
	void arrived() {
		this.arrived.incrementAndGet();
	}

	/** A {@code sleep} task arrived at its sleep: the first arrival (on the wall clock, as the server's) counts. */
	void reached(String taskId) {
		this.reached.putIfAbsent(taskId, epochNanos(Instant.now()));
	}

	/** Notes that a signal is about to be sent to a task. */
	void sending(String taskId) {
		this.signalSent.put(taskId, System.nanoTime());
	}

	void signalled(String taskId) {
		Long sent = this.signalSent.get(taskId);
		if (sent != null) {
			this.signalToReentry.record(sent);
		}
		this.signalled.incrementAndGet();
	}

	/**
	 * A sleeping task ran past its sleep: how long after its first arrival plus the sleep, and
	 * which stream sequence its resumed copy has (the server stamped it when the timer published it).
	 */
	void woke(String taskId, long sleepMillis, long streamSequence) {
		long deadline = this.reached.get(taskId) + sleepMillis * 1_000_000;
		this.lateness.recordNanos(epochNanos(Instant.now()) - deadline);
		this.deadlines.put(streamSequence, deadline);
		this.woke.incrementAndGet();
	}

	/** The deadlines of the woken tasks (epoch nanoseconds), by the stream sequence of their resumed copy. */
	Map<Long, Long> deadlines() {
		return this.deadlines;
	}

	static long epochNanos(Instant instant) {
		return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
	}

	int doneCount() {
		return this.done.get();
	}

	int arrivedCount() {
		return this.arrived.get();
	}

	int reachedCount() {
		return this.reached.size();
	}

	int signalledCount() {
		return this.signalled.get();
	}

	int wokeCount() {
		return this.woke.get();
	}

	LatencyRecorder signalToReentry() {
		return this.signalToReentry;
	}

	LatencyRecorder lateness() {
		return this.lateness;
	}

}
