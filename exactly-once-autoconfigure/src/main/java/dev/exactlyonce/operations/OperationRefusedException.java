package dev.exactlyonce.operations;

/**
 * Thrown when an operator's request cannot be carried out as asked: an unknown consumer, a dead
 * letter that is gone, a task in a state that does not allow the action. The message says what
 * was found and what to do instead; the {@link Kind} says which of those it is (the endpoint
 * answers 400, 404, 409 or 503 from it).
 */
public class OperationRefusedException extends RuntimeException {

	/** What kind of refusal it is. */
	public enum Kind {

		/** The request itself is wrong (a missing reason, an unknown action, a bad page): fix the request. */
		BAD_REQUEST,

		/** What it names does not exist (a consumer, a dead letter, a task's record). */
		NOT_FOUND,

		/** The task's or dead letter's current state does not allow it (running, settled, pending, lost a race). */
		CONFLICT,

		/**
		 * NATS did not store or did not answer: asking again repeats nothing done (the copy keeps its
		 * message id), but a copy NATS did not answer for may have been stored and may have run: a
		 * resubmit's answer says how to tell before asking again.
		 */
		UNAVAILABLE

	}

	private final Kind kind;

	/**
	 * A request that is wrong in itself.
	 * @param message what is wrong and how to ask
	 * @return the exception
	 */
	public static OperationRefusedException badRequest(String message) {
		return new OperationRefusedException(Kind.BAD_REQUEST, message);
	}

	/**
	 * A request naming something that does not exist.
	 * @param message what was not found and what to do instead
	 * @return the exception
	 */
	public static OperationRefusedException notFound(String message) {
		return new OperationRefusedException(Kind.NOT_FOUND, message);
	}

	/**
	 * A request that the current state of a task or dead letter does not allow.
	 * @param message the state found (state, owner, last outcome) and what to do instead
	 * @return the exception
	 */
	public static OperationRefusedException conflict(String message) {
		return new OperationRefusedException(Kind.CONFLICT, message);
	}

	/**
	 * A request NATS did not answer or store; asking again repeats nothing already done.
	 * @param message what failed and what to do
	 * @param cause the cause
	 * @return the exception
	 */
	public static OperationRefusedException unavailable(String message, Throwable cause) {
		return new OperationRefusedException(Kind.UNAVAILABLE, message, cause);
	}

	/**
	 * Creates the exception.
	 * @param kind what kind of refusal it is
	 * @param message what was found and what to do instead
	 */
	private OperationRefusedException(Kind kind, String message) {
		super(message);
		this.kind = kind;
	}

	/**
	 * Creates the exception with its cause.
	 * @param kind what kind of refusal it is
	 * @param message what failed and what to do
	 * @param cause the cause
	 */
	private OperationRefusedException(Kind kind, String message, Throwable cause) {
		super(message, cause);
		this.kind = kind;
	}

	/**
	 * What kind of refusal it is.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

}
