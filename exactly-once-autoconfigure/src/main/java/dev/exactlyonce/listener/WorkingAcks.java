package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Keeps a claimed delivery alive while its handler runs: on one schedule, below the effective ack
 * wait, it sends a working ack ({@code +WPI}) to the server and renews the claim's lease in the
 * store. A beat that fails in any way is logged and the next one follows on schedule: a timer that
 * died would let the lease run out under a live handler.
 */
final class WorkingAcks {

	private static final Log logger = LogFactory.getLog(WorkingAcks.class);

	private static final Duration FAILURE_REPORT_INTERVAL = Duration.ofMinutes(1);

	private final ScheduledExecutorService scheduler;

	private final IdempotencyStore store;

	private final PipelineObservers observers;

	WorkingAcks(ScheduledExecutorService scheduler, IdempotencyStore store, PipelineObservers observers) {
		this.scheduler = scheduler;
		this.store = store;
		this.observers = observers;
	}

	/**
	 * The scheduler working acks need. A stopped heartbeat's beat leaves its queue at once (with the
	 * JDK's default a cancelled beat stays queued until its due time, one working-ack interval,
	 * holding its delivery and payload: two per message handled meanwhile). A beat queued first in
	 * line makes the queue wake a timer thread, which with removed beats would be once or twice per
	 * message; a pacing task that does nothing, due every half of the shortest interval, stays ahead
	 * of every beat (each is due a whole interval after it was queued), so queuing a beat wakes no one.
	 * @param threads the timer threads
	 * @param threadFactory makes them
	 * @param shortestInterval the shortest working-ack interval of the listeners it serves
	 * @return the scheduler
	 */
	static ScheduledThreadPoolExecutor scheduler(int threads, ThreadFactory threadFactory, Duration shortestInterval) {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(threads, threadFactory);
		scheduler.setRemoveOnCancelPolicy(true);
		long pace = Math.max(1, shortestInterval.toMillis() / 2);
		scheduler.scheduleAtFixedRate(WorkingAcks::pace, pace, pace, TimeUnit.MILLISECONDS);
		return scheduler;
	}

	/** The pacing task: nothing to do (and nothing that could throw and end its schedule). */
	private static void pace() {
	}

	/** Starts working acks and lease renewals for a claimed delivery. */
	Heartbeat start(Delivery delivery) {
		return schedule(new Heartbeat(delivery, true));
	}

	/**
	 * Starts working acks alone, for a delivery being claimed (the store may be down or slow): the
	 * server neither redelivers it nor counts a delivery meanwhile.
	 */
	Heartbeat hold(Delivery delivery) {
		return schedule(new Heartbeat(delivery, false));
	}

	private Heartbeat schedule(Heartbeat heartbeat) {
		long period = heartbeat.delivery.settings().workingAckInterval().toMillis();
		heartbeat.future = this.scheduler.scheduleAtFixedRate(heartbeat::beat, period, period, TimeUnit.MILLISECONDS);
		return heartbeat;
	}

	/**
	 * The working acks of one delivery. The in-progress signal never waits for the store; lease
	 * renewals and the store writes made while it runs are serialised through {@link #exclusive},
	 * and a renewal is skipped while such a write is in flight, unless the lease would run out
	 * before the next beat: a write can take several store round trips, each up to the store's call
	 * timeout, and a lease that ran out under it would let another copy of the key take the task
	 * over and run it again. Such a renewal races the write as a compare-and-set the store decides
	 * (the loser reads again); one that finds the key completed by that write is not a lost claim.
	 */
	final class Heartbeat {

		private final Delivery delivery;

		private final ReentrantLock storeAccess = new ReentrantLock();

		private volatile ScheduledFuture<?> future;

		private volatile boolean stopped;

		private volatile boolean claimLost;

		private volatile boolean recorded;

		private final RateLimitedLog failures = new RateLimitedLog(logger, FAILURE_REPORT_INTERVAL);

		private final boolean renewing;

		private Heartbeat(Delivery delivery, boolean renewing) {
			this.delivery = delivery;
			this.renewing = renewing;
		}

		/** One run of the timer: never throws, so the schedule never ends early. */
		private void beat() {
			try {
				beatOnce();
			}
			catch (Throwable ex) {
				this.failures.warn(() -> "Working ack of the message at " + this.delivery.describe() + " failed ("
						+ ex.getClass().getName() + ": " + ex.getMessage() + "); the next one follows on schedule");
			}
		}

		private void beatOnce() {
			if (this.stopped) {
				return;
			}
			signalInProgress();
			if (!this.renewing) {
				return;
			}
			boolean renewed = false;
			// a write waiting for the store goes first: back-to-back renewals against a store that does not
			// answer would otherwise keep a finished handler's completion record from ever being tried
			if (!this.claimLost && !this.storeAccess.hasQueuedThreads() && this.storeAccess.tryLock()) {
				try {
					renewed = !this.stopped && !this.recorded && renew(false);
				}
				finally {
					this.storeAccess.unlock();
				}
			}
			else if (!this.claimLost && !this.recorded && leaseEndsBeforeTheNextBeat()) {
				renewed = !this.stopped && renew(true);
			}
			WorkingAcks.this.observers.workingAck(this.delivery, renewed);
		}

		/** The server's in-progress signal; a failure here must not skip the lease renewal. */
		private void signalInProgress() {
			try {
				this.delivery.message().inProgress();
			}
			catch (RuntimeException ex) {
				this.failures.warn(() -> "In-progress signal for the message at " + this.delivery.describe()
						+ " not sent (" + ex.getClass().getName() + ": " + ex.getMessage() + "); renewing the lease "
						+ "anyway, the next signal follows on schedule");
			}
		}

		/** Whether the lease would run out before the next beat, two intervals ahead to be safe. */
		private boolean leaseEndsBeforeTheNextBeat() {
			return this.delivery.leaseLeft()
				.compareTo(this.delivery.settings().workingAckInterval().multipliedBy(2)) < 0;
		}

		/**
		 * Renews the lease.
		 * @param alongsideAWrite whether a store write of this delivery is in flight: a claim it finds
		 * lost may be that write's completion, which the write itself reports
		 */
		private boolean renew(boolean alongsideAWrite) {
			Duration lease = this.delivery.settings().lease();
			long sent = System.nanoTime();
			try {
				this.delivery.renewed(WorkingAcks.this.store.renew(this.delivery.claim(), lease), sent);
				return true;
			}
			catch (ClaimLostException ex) {
				if (alongsideAWrite) {
					return false;
				}
				this.claimLost = true;
				logger.warn("Lost the claim on the message at " + this.delivery.describe()
						+ " while its handler runs; its completion will be refused and it will not be acked");
				return false;
			}
			catch (RuntimeException ex) {
				this.failures.warn(() -> "Could not renew the claim on the message at " + this.delivery.describe()
						+ ": " + ex.getMessage());
				return false;
			}
		}

		<T> T exclusive(Supplier<T> storeWrite) {
			this.storeAccess.lock();
			try {
				return storeWrite.get();
			}
			finally {
				this.storeAccess.unlock();
			}
		}

		/**
		 * The record this attempt ends with (its completion, or its WAITING record) is written, under
		 * {@link #exclusive}: the claim is over, so no renewal follows (one would find the record no
		 * longer in progress and report a lost claim); in-progress signals go on until {@link #stop}.
		 */
		void recorded() {
			this.recorded = true;
		}

		/** Whether a renewal found the claim lost. */
		boolean claimLost() {
			return this.claimLost;
		}

		void stop() {
			this.stopped = true;
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
			this.storeAccess.lock();
			this.storeAccess.unlock();
		}

	}

}
