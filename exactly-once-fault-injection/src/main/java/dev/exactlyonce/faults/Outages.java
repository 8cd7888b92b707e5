package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.Random;

import dev.exactlyonce.faults.FaultRow.Fault;

/**
 * Injects the faults of the store and partition rows while tasks are in flight, one at a time, each
 * only after progress since the previous one ended (executions for the store rows; a model call of
 * the partitioned consumer, so the cut lands mid-handler): a kill -9 and restart of the store's
 * server; a SIGSTOP of it, SIGCONT after {@code duration}; a cut of the partitioned consumer's veth
 * link, or of only its path to the store, healed after {@code duration}.
 */
final class Outages {

	private final Fault fault;

	private final StoreServer store;

	private final NetworkNamespace namespace;

	private final Duration duration;

	private final int planned;

	private final Random random;

	private final Log log;

	private int injections;

	private int lastProgress;

	private long nextAt;

	private long endAt;

	private boolean active;

	/**
	 * Creates the injector of one row.
	 * @param fault the row's fault
	 * @param store the row's store
	 * @param namespace the partitioned consumer's namespace, or {@code null} in the store rows
	 * @param duration how long a stall or cut lasts
	 * @param planned injections to reach
	 * @param random the row's random choices
	 * @param log where each injection and its end are reported
	 */
	Outages(Fault fault, StoreServer store, NetworkNamespace namespace, Duration duration, int planned,
			Random random, Log log) {
		this.fault = fault;
		this.store = store;
		this.namespace = namespace;
		this.duration = duration;
		this.planned = planned;
		this.random = random;
		this.log = log;
	}

	/**
	 * Ends the current outage when it is due, else starts the next one when it is due.
	 * @param progress what the row counts as progress so far (executions, or the partitioned consumer's
	 * model calls)
	 * @param workRemaining whether tasks are still published or unsettled
	 * @return whether a fault was injected now
	 */
	boolean poll(int progress, boolean workRemaining) {
		long now = System.nanoTime();
		if (this.active) {
			if (now >= this.endAt) {
				end();
				this.lastProgress = progress;
				this.nextAt = now + (200 + this.random.nextInt(500)) * 1_000_000L;
			}
			return false;
		}
		if (this.injections >= this.planned || !workRemaining || now < this.nextAt || progress <= this.lastProgress) {
			return false;
		}
		this.injections++;
		this.log.line(this.fault + " " + this.injections + " begins (" + progress + " executions so far)");
		if (this.fault == Fault.STORE_RESTART) {
			this.store.server().restart();
			this.lastProgress = progress;
			this.nextAt = now + 1_000_000_000L;
			return true;
		}
		begin();
		this.active = true;
		this.endAt = now + this.duration.toNanos();
		return true;
	}

	/** Whether a stall or cut is in force. */
	boolean active() {
		return this.active;
	}

	/** Ends a stall or cut in force (at the end of a row, also a failed one). */
	void end() {
		if (!this.active) {
			return;
		}
		this.active = false;
		this.log.line(this.fault + " " + this.injections + " ends");
		switch (this.fault) {
			case STORE_STALL -> this.store.server().resume();
			case PARTITION -> this.namespace.healLink();
			case STORE_PARTITION -> this.namespace.healStorePath();
			default -> throw new IllegalStateException(this.fault + " has no outage to end");
		}
	}

	private void begin() {
		switch (this.fault) {
			case STORE_STALL -> this.store.server().pause();
			case PARTITION -> this.namespace.cutLink();
			case STORE_PARTITION -> this.namespace.cutStorePath();
			default -> throw new IllegalStateException(this.fault + " is not an outage");
		}
	}

}
