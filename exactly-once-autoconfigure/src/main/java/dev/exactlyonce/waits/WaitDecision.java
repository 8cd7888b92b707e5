package dev.exactlyonce.waits;

import java.time.Instant;

/**
 * What ended a signal wait: the first decision stored under its {@link WaitKey} wins, so a signal
 * and the wait's timeout are decided once.
 *
 * @param outcome whether a signal arrived or the wait timed out
 * @param signalId the signal's id (the sender's, for deduplication), or {@code null}
 * @param payload the signal's payload as JSON, or {@code null}
 * @param sender who sent it, or {@code timer}
 * @param reason why, in the sender's words, or {@code null}
 * @param at when it was decided
 */
record WaitDecision(Outcome outcome, String signalId, String payload, String sender, String reason, Instant at) {

	/** The sender of a timeout. */
	static final String TIMER = "timer";

	/** What ended the wait. */
	enum Outcome {

		/** A signal arrived in time. */
		SIGNALLED,

		/** The timeout passed first. */
		TIMED_OUT,

		/**
		 * Not a decision: a notice kept next to the wait's decision (e.g. that a child task was
		 * dead-lettered), which resumes the wait without ending it for good.
		 */
		NOTICED

	}

	static WaitDecision signal(String signalId, String payload, String sender, String reason, Instant at) {
		return new WaitDecision(Outcome.SIGNALLED, signalId, payload, sender, reason, at);
	}

	static WaitDecision notice(String payload, String sender, String reason, Instant at) {
		return new WaitDecision(Outcome.NOTICED, null, payload, sender, reason, at);
	}

	static WaitDecision timedOut(Instant at) {
		return new WaitDecision(Outcome.TIMED_OUT, null, null, TIMER, null, at);
	}

	/** Whether this is the decision of the same signal (its id). */
	boolean isSignal(String id) {
		return this.outcome == Outcome.SIGNALLED && id.equals(this.signalId);
	}

	/** The audit reason of the resumption this decision causes. */
	String describe(String waitName) {
		return switch (this.outcome) {
			case SIGNALLED -> "signal '" + waitName + "' (id " + this.signalId + ")"
					+ ((this.reason != null) ? ": " + this.reason : "");
			case NOTICED -> "notice for '" + waitName + "'" + ((this.reason != null) ? ": " + this.reason : "");
			case TIMED_OUT -> "wait for signal '" + waitName + "' timed out";
		};
	}

}
