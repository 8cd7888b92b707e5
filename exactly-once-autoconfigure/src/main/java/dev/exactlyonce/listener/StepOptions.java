package dev.exactlyonce.listener;

/**
 * How a durable step runs, beyond its name, type and action.
 *
 * @param limit the limit the step's action runs under ({@code exactlyonce.limits.<name>}), or
 * {@code null}
 * @param limitKey the key within the limit; empty for one key for the whole limit
 */
public record StepOptions(String limit, String limitKey) {

	/**
	 * Runs the step's action only with a slot and a token of a limit (one key for the whole limit):
	 * over it, the task waits before the step, holding nothing, and its earlier steps replay when it
	 * resumes; the slot is given back when the action ends. See docs/limits.md.
	 * @param limit the limit's name
	 * @return the options
	 */
	public static StepOptions limit(String limit) {
		return new StepOptions(limit, "");
	}

	/**
	 * Runs the step's action under a limit, for one key of it.
	 * @param limit the limit's name
	 * @param key the key within the limit, e.g. an API key's name
	 * @return the options
	 */
	public static StepOptions limit(String limit, String key) {
		return new StepOptions(limit, (key != null) ? key : "");
	}

}
