package dev.exactlyonce.listener;

import java.util.Locale;

/**
 * How the pipeline settled one delivery. The lower-case names are the {@code outcome} tag values
 * of the {@code exactlyonce.messages} meter.
 */
public enum DeliveryOutcome {

	/** The handler ran, the completion record was written and the message acknowledged. */
	PROCESSED,

	/**
	 * The key was completed before, or its task is suspended at a durable wait: acknowledged without
	 * running the handler.
	 */
	DUPLICATE,

	/**
	 * The handler stopped at a durable wait: the task was suspended (its record {@code WAITING}) and
	 * the message acknowledged; the wait's end publishes the copy that resumes it.
	 */
	SUSPENDED,

	/** Another worker holds a live claim on the key: redelivery requested after its lease. */
	IN_PROGRESS_ELSEWHERE,

	/** The handler failed or the store could not be reached: redelivery requested after a delay. */
	RETRIED,

	/** The message was parked in the dead-letter subject and terminated. */
	DEAD_LETTERED,

	/** A copy of a key that was dead-lettered before: terminated without running, no second dead letter. */
	ALREADY_DEAD_LETTERED,

	/** The claim was taken over while the handler ran: no completion, no ack. */
	CLAIM_LOST,

	/** The handler ran but the completion record could not be written in time: no ack. */
	COMPLETION_UNRECORDED,

	/**
	 * The handler ran, the store could not take its completion record before the listener stopped, and
	 * the completion was parked on NATS for the next attempt to record: no ack.
	 */
	COMPLETION_PARKED,

	/**
	 * The attempt this one took over had finished its handler and parked its completion: the record was
	 * written from it and the message acknowledged without running the handler again.
	 */
	COMPLETION_RECOVERED;

	/**
	 * The meter tag value.
	 * @return the lower-case name
	 */
	public String tagValue() {
		return name().toLowerCase(Locale.ROOT);
	}

}
