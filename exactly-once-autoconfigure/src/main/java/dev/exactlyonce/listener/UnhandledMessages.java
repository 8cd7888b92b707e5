package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;

import dev.exactlyonce.listener.logging.ContainerLog;

/**
 * Gives back to the server, through a container's connection, the messages its workers never
 * handled: naks them, drains a stopping subscription, and flushes before a deadline, so another
 * instance gets them at once instead of after the ack wait. Never throws and never leaves the
 * calling thread's interrupt flag changed.
 */
final class UnhandledMessages {

	private final Connection connection;

	private final ContainerLog log;

	UnhandledMessages(Connection connection, ContainerLog log) {
		this.connection = connection;
		this.log = log;
	}

	/** Naks a message no worker handled; a failure is logged (it returns after the ack wait). */
	void nak(Message message) {
		Uninterrupted.run(() -> {
			try {
				message.nak();
			}
			catch (RuntimeException ex) {
				this.log.failed("could not nak a message that was not handled; it returns after the ack wait",
						ex.getMessage());
			}
		});
	}

	/**
	 * Ends the subscription without losing a message: the unsubscribe is flushed, so every
	 * message the server sent for an open pull has arrived (the server sends nothing to a pull
	 * nobody listens to any more), and each one not handed out is nak'd. While disconnected it
	 * only naks what arrived (the server ends its pulls when the connection goes).
	 */
	void returnLeftovers(JetStreamSubscription subscription, long deadline) {
		boolean interrupted = Thread.interrupted();
		try {
			if (isConnected()) {
				subscription.drain(remainingUntil(deadline));
			}
			while (subscription.getPendingMessageCount() > 0) {
				Message message = subscription.nextMessage((Duration) null);
				if (message != null) {
					nak(message);
				}
			}
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		catch (RuntimeException ex) {
			// the drained subscription was closed: nothing is left in it
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Flushes the last acks and naks, waiting at most until {@code deadline} ({@link System#nanoTime()}). */
	void flushUntil(long deadline) {
		if (!isConnected()) {
			return;
		}
		Uninterrupted.run(() -> {
			try {
				this.connection.flush(remainingUntil(deadline));
			}
			catch (Exception ex) {
				this.log.failed("could not flush the last acks and naks before the shutdown timeout", ex.getMessage());
			}
		});
	}

	private boolean isConnected() {
		return this.connection.getStatus() == Connection.Status.CONNECTED;
	}

	/** Time left until a deadline, at least one millisecond (jnats treats zero as "forever"). */
	static Duration remainingUntil(long deadline) {
		return Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - System.nanoTime()));
	}

}
