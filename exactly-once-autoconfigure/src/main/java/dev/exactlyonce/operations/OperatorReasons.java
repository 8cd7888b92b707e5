package dev.exactlyonce.operations;

/**
 * The rule for the reason an operator gives for a replay, discard, resubmit or signal: it is kept
 * in the task's audit, which every read of the record carries and the dashboard shows, so it is
 * short; details belong in a ticket it can name.
 */
public final class OperatorReasons {

	/** The most characters a reason may have. */
	public static final int MAX_LENGTH = 500;

	private OperatorReasons() {
	}

	/**
	 * Refuses a reason longer than {@link #MAX_LENGTH} characters.
	 * @param reason the reason, or {@code null}
	 * @throws OperationRefusedException (bad request) when it is too long
	 */
	public static void check(String reason) {
		if (reason != null && reason.length() > MAX_LENGTH) {
			throw OperationRefusedException.badRequest("The reason has " + reason.length() + " characters, more than the "
					+ MAX_LENGTH + " a reason may have (it is kept in the task's audit): shorten it, and name a "
					+ "ticket for the details");
		}
	}

}
