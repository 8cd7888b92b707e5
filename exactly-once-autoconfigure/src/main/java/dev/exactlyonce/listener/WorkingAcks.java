package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Keeps a claimed delivery alive while its handler runs: on one schedule, below the effective ack
 * wait, it sends a working ack ({@code +WPI}) to the server and renews the claim's lease in the
 * store.
 */
final class WorkingAcks {

	private static final Log logger = LogFactory.getLog(WorkingAcks.class);

	private final ScheduledExecutorService scheduler;

	private final IdempotencyStore store;

	private final PipelineObservers observers;

	WorkingAcks(ScheduledExecutorService scheduler, IdempotencyStore store, PipelineObservers observers) {
		this.scheduler = scheduler;
		this.store = store;
		this.observers = observers;
	}

	Heartbeat start(Delivery delivery) {
		Heartbeat heartbeat = new Heartbeat(delivery);
		long period = delivery.settings().workingAckInterval().toMillis();
		heartbeat.future = this.scheduler.scheduleAtFixedRate(heartbeat::beat, period, period, TimeUnit.MILLISECONDS);
		return heartbeat;
	}

	/**
	 * The working acks of one delivery. Store writes made while it runs are serialised with its
	 * renewals through {@link #exclusive}, so a renewal never races the completion record.
	 */
	final class Heartbeat {

		private final Delivery delivery;

		private volatile ScheduledFuture<?> future;

		private boolean stopped;

		private boolean claimLost;

		private Heartbeat(Delivery delivery) {
			this.delivery = delivery;
		}

		private void beat() {
			synchronized (this) {
				if (this.stopped) {
					return;
				}
				this.delivery.message().inProgress();
				boolean renewed = !this.claimLost && renew();
				WorkingAcks.this.observers.workingAck(this.delivery, renewed);
			}
		}

		private boolean renew() {
			Duration lease = this.delivery.settings().lease();
			try {
				this.delivery.renewed(WorkingAcks.this.store.renew(this.delivery.claim(), lease));
				return true;
			}
			catch (ClaimLostException ex) {
				this.claimLost = true;
				logger.warn("Lost the claim on the message at " + this.delivery.describe()
						+ " while its handler runs; its completion will be refused and it will not be acked");
				return false;
			}
			catch (StoreUnavailableException ex) {
				logger.warn("Could not renew the claim on the message at " + this.delivery.describe() + ": "
						+ ex.getMessage());
				return false;
			}
		}

		synchronized <T> T exclusive(Supplier<T> storeWrite) {
			return storeWrite.get();
		}

		synchronized void stop() {
			this.stopped = true;
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

}
