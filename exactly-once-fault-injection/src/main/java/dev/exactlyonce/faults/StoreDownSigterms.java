package dev.exactlyonce.faults;

import java.util.List;

/**
 * Injects the fault of {@link FaultRow.Fault#STORE_DOWN_SIGTERM}, one at a time: as soon as a delivery
 * is held at the row's chaos point (its side effect done, its completion record not written), the
 * store's server is stopped ({@code kill -STOP}) and that consumer JVM gets a SIGTERM; once it exited,
 * the server is killed and started again on its append-only file before the row starts the consumer
 * again. A {@code kill -CONT} instead would let the server apply what the JVM sent it before exiting
 * (its completion write among them, read from the socket buffer): the record would be written after
 * all and the parked completion never needed.
 */
final class StoreDownSigterms {

	/** Exit status of a JVM that ran its shutdown hooks on a SIGTERM (128 + 15). */
	static final int SIGTERM_STATUS = 143;

	private final StoreServer store;

	private final int planned;

	private final Log log;

	private final StallWatch stalls = new StallWatch();

	private ConsumerSlot terminated;

	private int injections;

	/**
	 * Creates the injector of one row.
	 * @param store the row's store
	 * @param planned injections to reach
	 * @param log where each injection and its end are reported
	 */
	StoreDownSigterms(StoreServer store, int planned, Log log) {
		this.store = store;
		this.planned = planned;
		this.log = log;
	}

	/**
	 * Stops the store and sends SIGTERM to a consumer JVM with a delivery newly held at the point,
	 * unless the previous injection is still under way or enough were injected.
	 * @param slots the row's consumers
	 * @return whether a fault was injected now
	 */
	boolean poll(List<ConsumerSlot> slots) {
		List<ConsumerSlot> stalled = this.stalls.newlyStalled(slots);
		if (this.terminated != null || this.injections >= this.planned || stalled.isEmpty()) {
			return false;
		}
		this.terminated = stalled.get(0);
		this.injections++;
		this.store.server().pause();
		this.terminated.terminate();
		this.log.line("store down + SIGTERM " + this.injections + ": " + this.terminated.name() + "."
				+ this.terminated.incarnations());
		return true;
	}

	/**
	 * Told that a consumer JVM died: restarts the store when it is the one sent SIGTERM.
	 * @param slot the consumer
	 * @param status its exit status
	 * @return whether it is that JVM and exited as a SIGTERM does (else its death is unexpected)
	 */
	boolean exited(ConsumerSlot slot, int status) {
		if (slot != this.terminated) {
			return false;
		}
		end();
		return status == SIGTERM_STATUS;
	}

	/** Whether a consumer JVM was sent SIGTERM and has not exited yet (the store is stopped meanwhile). */
	boolean active() {
		return this.terminated != null;
	}

	/** Restarts the store when it is stopped (the JVM exited, or the row ends). */
	void end() {
		if (this.terminated == null) {
			return;
		}
		this.store.server().restart();
		this.log.line("store down + SIGTERM " + this.injections + " ends");
		this.terminated = null;
	}

}
