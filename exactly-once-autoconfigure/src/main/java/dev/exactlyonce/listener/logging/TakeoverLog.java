package dev.exactlyonce.listener.logging;

import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What an attempt that takes over an abandoned claim (its holder died mid-work) says: that it took
 * the claim over, what each probe found, and, as a warning, each step it runs again without a
 * probe, whose side effect may then happen twice.
 */
public final class TakeoverLog {

	private static final Log logger = LogFactory.getLog(TakeoverLog.class);

	private TakeoverLog() {
	}

	/**
	 * Logs the take-over of an abandoned claim.
	 * @param where where the message is
	 * @param key its idempotency key
	 * @param owner the abandoned attempt's owner
	 * @param startedAt when the abandoned attempt started
	 * @param action what happens now, e.g. "running it again (on-abandoned: retry)"
	 */
	public static void claimTakenOver(String where, String key, String owner, Instant startedAt, String action) {
		logger.info("Took over the abandoned claim on key '" + key + "' (message at " + where + "): the attempt of '"
				+ owner + "', started " + startedAt + ", died mid-work (its lease ran out without a completion); "
				+ action);
	}

	/**
	 * Logs a probe's answer about a step the abandoned attempt left unfinished.
	 * @param where where the message is
	 * @param key its idempotency key
	 * @param step the step's name
	 * @param owner the abandoned attempt's owner
	 * @param found whether the probe found the step's result
	 */
	public static void probed(String where, String key, String step, String owner, boolean found) {
		logger.info("Step '" + step + "' of key '" + key + "' (message at " + where + ") was left unfinished by the "
				+ "previous attempt of '" + owner + "'; its probe " + (found
						? "found its result: journaled, the step does not run again"
						: "found no result: the step runs again"));
	}

	/**
	 * Warns that a step the abandoned attempt left unfinished runs again with no probe to ask.
	 * @param where where the message is
	 * @param key its idempotency key
	 * @param step the step's name
	 * @param owner the abandoned attempt's owner
	 * @param onAbandonedProperty the property that makes such a task wait for a person instead
	 */
	public static void rerunWithoutProbe(String where, String key, String step, String owner,
			String onAbandonedProperty) {
		logger.warn("Step '" + step + "' of key '" + key + "' (message at " + where + ") was started by the previous attempt "
				+ "of '" + owner + "', which never finished it, and the step has no probe: it runs again "
				+ "(on-abandoned: retry), so its side effect may happen twice. Give the step a probe that finds its "
				+ "result (context.step(name, type, action, probe)), or set " + onAbandonedProperty
				+ "=dead-letter to park such tasks for a person");
	}

}
