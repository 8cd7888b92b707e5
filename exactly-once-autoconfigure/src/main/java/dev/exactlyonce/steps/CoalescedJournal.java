package dev.exactlyonce.steps;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import dev.exactlyonce.steps.spi.SteppingTask;
import dev.exactlyonce.store.StepRecord;

/**
 * The journal writes of one claimed delivery, with its steps' {@code DONE} entries held back to be
 * journaled with the entry after them (the next step's or wait's {@code STARTED}) in one store
 * write. A held entry is journaled alone once the delay has passed, by the {@link HeldDoneSweep}
 * (attempts at growing intervals until one succeeds), and always before the handler's way
 * out ({@link #flush}). Every write is made under one lock, so the entries land in order and the
 * sweep never writes beside the handler.
 */
final class CoalescedJournal {

	private final SteppingTask task;

	/** The sweep that journals entries held too long, or {@code null} to journal each entry at once. */
	private final HeldDoneSweep sweep;

	private final ReentrantLock lock = new ReentrantLock();

	/** The DONE entries not yet journaled, in order; guarded by {@link #lock}. */
	private List<StepRecord> held = new ArrayList<>(2);

	/** Whether the sweep will look at the held entries; guarded by {@link #lock}. */
	private boolean swept;

	/** The sweep's attempts that failed in a row; guarded by {@link #lock}. */
	private int failures;

	CoalescedJournal(SteppingTask task, HeldDoneSweep sweep) {
		this.task = task;
		this.sweep = sweep;
	}

	/** Holds a step's DONE entry for the next write (journals it at once without a sweep). */
	void done(StepRecord done) {
		if (this.sweep == null) {
			this.task.journal(List.of(done));
			return;
		}
		this.lock.lock();
		try {
			this.held.add(done);
			if (!this.swept) {
				this.swept = true;
				this.sweep.hold(this);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Journals an entry at once, with the held entries before it.
	 * @throws RuntimeException what {@link SteppingTask#journal} throws; the held entries are kept
	 */
	void write(StepRecord entry) {
		this.lock.lock();
		try {
			List<StepRecord> entries = takeHeld();
			entries.add(entry);
			journal(entries, entries.size() - 1);
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Journals the held entries, if any: the handler is on its way out (returned, threw or waits).
	 * @throws RuntimeException what {@link SteppingTask#journal} throws; the entries are kept
	 */
	void flush() {
		this.lock.lock();
		try {
			if (!this.held.isEmpty()) {
				List<StepRecord> entries = takeHeld();
				journal(entries, entries.size());
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Journals {@code entries}, of which the first {@code heldCount} were held: kept again when it fails. */
	private void journal(List<StepRecord> entries, int heldCount) {
		try {
			this.task.journal(entries);
		}
		catch (RuntimeException | Error ex) {
			List<StepRecord> kept = new ArrayList<>(entries.subList(0, heldCount));
			kept.addAll(this.held);
			this.held = kept;
			throw ex;
		}
	}

	private List<StepRecord> takeHeld() {
		List<StepRecord> taken = this.held;
		this.held = new ArrayList<>(2);
		return taken;
	}

	/**
	 * The sweep's look: one attempt to journal what is still held; never throws. When it fails the
	 * sweep looks again later (the wait doubling); when the handler holds the lock (it is writing,
	 * and takes the held entries with it, or holding one more), a delay later.
	 */
	void expire() {
		if (!this.lock.tryLock()) {
			this.sweep.hold(this);
			return;
		}
		try {
			if (this.held.isEmpty() || this.task.tryJournal(this.held)) {
				this.held = new ArrayList<>(2);
				this.swept = false;
				this.failures = 0;
			}
			else {
				// another attempt later, for as long as the handler holds the entries
				this.failures++;
				this.sweep.retry(this, this.failures);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

}
