package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The permits a container's pulls take per message: a worker, held until its handler returned, and
 * an in-flight slot, held until the message is settled. Pipelined there are twice as many slots as
 * workers (one message handled, one whose completion record is being written), so a pull never asks
 * for more messages than there are free workers and free slots.
 */
final class InFlightPermits {

	/** Messages in flight per worker when pipelined: one handled, one whose record is being written. */
	private static final int PIPELINED_SLOTS_PER_WORKER = 2;

	private final Semaphore freeWorkers;

	private final Semaphore freeSlots;

	private final int slots;

	InFlightPermits(int concurrency, boolean pipelined) {
		this.slots = pipelined ? PIPELINED_SLOTS_PER_WORKER * concurrency : concurrency;
		this.freeWorkers = new Semaphore(concurrency);
		this.freeSlots = new Semaphore(this.slots);
	}

	/** In-flight slots: concurrency, twice that when pipelined. */
	int slots() {
		return this.slots;
	}

	/**
	 * Waits for at least one free worker and one free slot, then takes as many of each as both
	 * allow; 0 when none came free within {@code wait}.
	 */
	int reserve(Duration wait) throws InterruptedException {
		long deadline = System.nanoTime() + wait.toNanos();
		if (!this.freeWorkers.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
			return 0;
		}
		boolean slot = false;
		try {
			slot = this.freeSlots.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		finally {
			if (!slot) {
				this.freeWorkers.release();
			}
		}
		if (!slot) {
			return 0;
		}
		int workers = 1 + this.freeWorkers.drainPermits();
		int slots = 1 + this.freeSlots.drainPermits();
		int wanted = Math.min(workers, slots);
		this.freeWorkers.release(workers - wanted);
		this.freeSlots.release(slots - wanted);
		return wanted;
	}

	/** Gives back the worker and the slot of each of {@code messages} reserved but not handed to a worker. */
	void notDispatched(int messages) {
		this.freeWorkers.release(messages);
		this.freeSlots.release(messages);
	}

	/** Gives back a worker whose handler returned. */
	void workerFree() {
		this.freeWorkers.release();
	}

	/** Gives back the slot of a settled message. */
	void slotFree() {
		this.freeSlots.release();
	}

	/** Worker permits not held by a pull or a handler; never above concurrency. */
	int freeWorkers() {
		return this.freeWorkers.availablePermits();
	}

	/** In-flight slots not held by a pull or an unsettled message. */
	int freeSlots() {
		return this.freeSlots.availablePermits();
	}

}
