package dev.exactlyonce.listener.logging;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One DEBUG line per settled delivery: where the message is, its key, the outcome and how long the
 * pipeline held it. Never the payload.
 */
public final class OutcomeLog {

	private static final Log logger = LogFactory.getLog(OutcomeLog.class);

	private OutcomeLog() {
	}

	/**
	 * Logs a delivery's outcome at DEBUG.
	 * @param where where the message is (stream, consumer, sequence, delivery)
	 * @param key its idempotency key, or {@code null} when none was resolved
	 * @param outcome the outcome's tag value
	 * @param held how long since the message was received
	 */
	public static void settled(String where, String key, String outcome, Duration held) {
		if (logger.isDebugEnabled()) {
			logger.debug("Message at " + where + ", key " + ((key != null) ? "'" + key + "'" : "(none)") + ": "
					+ outcome + " in " + held.toMillis() + " ms");
		}
	}

}
