package dev.exactlyonce.waits;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.nats.client.Message;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.logging.RateLimitedLog;

/**
 * Keeps the tickets an instance holds (handed to a looker, or being looked at) from coming back to
 * another one: a working ack ({@code +WPI}) every third of the timer consumer's ack wait. So that ack
 * wait can be short, and a ticket held by an instance that died comes back within seconds. A ticket
 * held longer than {@link #LONGEST} (a look that hangs) gets no more working acks: it comes back after
 * the ack wait and is looked at again, here or elsewhere; looks are idempotent.
 */
final class TicketWorkingAcks {

	private static final Log logger = LogFactory.getLog(TicketWorkingAcks.class);

	/** The longest a look keeps its ticket with working acks. */
	static final Duration LONGEST = Duration.ofMinutes(2);

	private static final long SHORTEST_INTERVAL_MILLIS = 100;

	private final ScheduledThreadPoolExecutor scheduler;

	private final long intervalMillis;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	/**
	 * Starts the timer thread.
	 * @param ackWait the timer consumer's ack wait on the server
	 */
	TicketWorkingAcks(Duration ackWait) {
		this.intervalMillis = Math.max(SHORTEST_INTERVAL_MILLIS, ackWait.toMillis() / 3);
		this.scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "exactlyonce-wait-timer-acks");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Sends working acks for a ticket until the hold is closed, or for {@link #LONGEST}.
	 * @param ticket the ticket
	 * @return the hold, to close when the ticket is settled (or given up)
	 */
	Hold hold(Message ticket) {
		Hold hold = new Hold(ticket);
		hold.future = this.scheduler.scheduleAtFixedRate(hold::beat, this.intervalMillis, this.intervalMillis,
				TimeUnit.MILLISECONDS);
		return hold;
	}

	/** Stops the working acks of every hold: their tickets come back after the ack wait. */
	void shutdown() {
		this.scheduler.shutdown();
	}

	/** The working acks of one ticket. */
	final class Hold implements AutoCloseable {

		private final Message ticket;

		private final long until = System.nanoTime() + LONGEST.toNanos();

		private volatile ScheduledFuture<?> future;

		private Hold(Message ticket) {
			this.ticket = ticket;
		}

		/** One working ack: never throws, so the schedule goes on until the hold is closed. */
		private void beat() {
			try {
				if (System.nanoTime() - this.until > 0) {
					close();
					TicketWorkingAcks.this.failures.warn(() -> "The look at the ticket at sequence "
							+ this.ticket.metaData().streamSequence() + " has taken more than " + LONGEST
							+ "; the ticket is left to come back after its ack wait and be looked at again");
					return;
				}
				this.ticket.inProgress();
			}
			catch (Throwable ex) {
				TicketWorkingAcks.this.failures.warn(() -> "Could not send a working ack for a wait ticket ("
						+ ex.getClass().getName() + ": " + ex.getMessage() + "); the next one follows on schedule");
			}
		}

		@Override
		public void close() {
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

}
