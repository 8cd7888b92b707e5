package dev.exactlyonce.listener.logging;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * What settling a delivery says when it does not go the plain way: no claim, a completion that
 * could not be recorded or was parked or recovered, a shutdown, a lost claim, and a server or store
 * call that failed, each with what happens to the message next. Never a payload.
 */
public final class SettlementLog {

	private static final Log logger = LogFactory.getLog(SettlementLog.class);

	private SettlementLog() {
	}

	/**
	 * Warns of a message not run because the store could not be reached.
	 * @param where the message
	 * @param cause the store's failure
	 */
	public static void noClaim(String where, String cause) {
		logger.warn("No claim on the message at " + where + "; not running it, redelivery requested: " + cause);
	}

	/**
	 * Logs a handler that succeeded but whose completion could neither be recorded nor parked.
	 * @param where the message
	 * @param cause the store's failure
	 */
	public static void completionUnrecorded(String where, String cause) {
		logger.error("Handler of the message at " + where + " succeeded but its completion record could not be "
				+ "written before the listener stopped, nor parked on NATS; not acknowledged, it returns as an "
				+ "abandoned attempt (on-abandoned decides): " + cause);
	}

	/**
	 * Warns of a completion parked on NATS for the next attempt to record.
	 * @param where the message
	 * @param cause why the store did not take it
	 */
	public static void completionParked(String where, String cause) {
		logger.warn("Handler of the message at " + where + " succeeded but the listener stopped before its "
				+ "completion record could be written (" + cause + "); the completion is parked on NATS and the "
				+ "attempt that takes the key over next records it without running the handler again; not "
				+ "acknowledged");
	}

	/**
	 * Logs a parked completion recorded by the attempt that took its key over.
	 * @param where the message
	 * @param key its idempotency key
	 */
	public static void completionRecovered(String where, String key) {
		logger.info("Message at " + where + ": the attempt this one took over had finished key '" + key + "' and "
				+ "parked its completion; recorded now, acknowledged without running the handler again");
	}

	/**
	 * Says that a task was suspended at a durable wait (debug: a suspension is routine).
	 * @param where where the message is
	 * @param key its idempotency key
	 * @param waitingFor what it waits for
	 */
	public static void suspended(String where, String key, String waitingFor) {
		if (logger.isDebugEnabled()) {
			logger.debug("Message at " + where + ": task '" + key + "' suspended, waiting for " + waitingFor
					+ "; acknowledged, it runs again when the wait ends");
		}
	}

	/**
	 * Warns of a handler that swallowed its wait's suspension (caught {@code Throwable}) and returned.
	 * @param where where the message is
	 * @param key its idempotency key
	 * @param waitingFor what the wait waits for
	 */
	public static void suspensionSwallowed(String where, String key, String waitingFor) {
		logger.warn("Handler of the message at " + where + " swallowed the suspension of its wait (" + waitingFor
				+ ") and returned: task '" + key + "' is suspended all the same and its return value dropped, but "
				+ "what it did after the wait ran without the wait's answer. Let WaitSuspension through "
				+ "(do not catch Throwable around a wait, or rethrow it): docs/waits.md");
	}

	/**
	 * Warns of a handler stopped by a shutdown.
	 * @param where the message
	 * @param failure the type of what it threw
	 */
	public static void stoppedByShutdown(String where, String failure) {
		logger.warn("Handler of the message at " + where + " stopped by shutdown (" + failure + "); released for "
				+ "another instance");
	}

	/**
	 * Warns of a claim taken over while its handler ran.
	 * @param where the message
	 * @param refused what was refused because of it
	 */
	public static void claimLost(String where, String refused) {
		logger.warn("Claim on the message at " + where + " was taken over while its handler ran (lease lost); "
				+ refused + ", not acknowledged. Raise exactlyonce.store.lease if handlers are paused longer than it.");
	}

	/**
	 * Logs a dead letter that no stream stored.
	 * @param where the message
	 * @param reason why it was to be dead-lettered
	 * @param cause why it was not stored
	 */
	public static void deadLetterNotStored(String where, String reason, String cause) {
		logger.error("Message at " + where + " must be dead-lettered (" + reason + ") but the dead letter was not "
				+ "stored; it stays on the stream: " + cause);
	}

	/**
	 * Warns that something could not be done to a message.
	 * @param action what could not be done, e.g. "release the claim on"
	 * @param where the message
	 * @param consequence what happens instead, e.g. "; it becomes claimable when its lease ends"
	 * @param cause the failure
	 */
	public static void couldNot(String action, String where, String consequence, String cause) {
		logger.warn("Could not " + action + " the message at " + where + consequence + ": " + cause);
	}

	/**
	 * Warns of a dead-lettered message whose key stays unmarked: a running attempt holds it, or the
	 * store did not answer.
	 * @param where the message
	 */
	public static void deadLetteredKeyUnmarked(String where) {
		logger.warn("Key of the dead-lettered message at " + where + " is held by a running attempt or unreachable; "
				+ "it was not marked DEAD_LETTERED");
	}

	/**
	 * Warns that an ack, nak or termination was not sent or not confirmed.
	 * @param signal "Ack", "Nak" or "Termination"
	 * @param where the message
	 * @param failed "not sent" or "not confirmed"
	 * @param cause the failure
	 * @param consequence what happens to the message instead
	 */
	public static void signalFailed(String signal, String where, String failed, String cause, String consequence) {
		logger.warn(signal + " of the message at " + where + " " + failed + " (" + cause + "); " + consequence);
	}

	/**
	 * Warns of a copy of a key dead-lettered before.
	 * @param line the line, saying how to run the key again
	 */
	public static void alreadyDeadLettered(String line) {
		logger.warn(line);
	}

}
