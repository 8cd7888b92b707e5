package dev.exactlyonce.listener;

import java.util.Locale;

/**
 * What a durable step did. The lower-case names are the {@code outcome} tag values of the
 * {@code exactlyonce.steps} meter.
 */
public enum StepOutcome {

	/** The action ran and its result was journaled. */
	EXECUTED,

	/** An earlier attempt journaled the result: returned without running the action. */
	REPLAYED,

	/** An earlier attempt died mid-step and the probe found its side effect: journaled, action not run. */
	PROBE_FOUND,

	/** An earlier attempt died mid-step and the probe found nothing: the action ran. */
	PROBE_ABSENT;

	/**
	 * The meter tag value.
	 * @return the lower-case name
	 */
	public String tagValue() {
		return name().toLowerCase(Locale.ROOT);
	}

}
