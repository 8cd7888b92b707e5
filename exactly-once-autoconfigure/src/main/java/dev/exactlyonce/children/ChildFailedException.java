package dev.exactlyonce.children;

/**
 * A child task failed: it was dead-lettered (and has not completed since: a replay that completes
 * still delivers its result) or discarded (final). Thrown by {@code awaitChild}, and by
 * {@link ChildResult#get()} of {@code awaitAll}; unchecked, so a parent that does not catch it fails
 * like any failing handler (retried by its retry policy, then dead-lettered).
 */
public class ChildFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String childName;

	private final String childKey;

	private final String reason;

	private final boolean discarded;

	/**
	 * Creates the exception.
	 * @param childName the child's name in the parent's journal
	 * @param childKey the child's idempotency key
	 * @param reason why it failed, as its dead letter or discard says
	 * @param discarded whether it was discarded (final), rather than dead-lettered (may be replayed)
	 */
	public ChildFailedException(String childName, String childKey, String reason, boolean discarded) {
		super("Child task '" + childName + "' (key '" + childKey + "') was " + (discarded ? "discarded" : "dead-lettered")
				+ ": " + reason + (discarded ? "" : ". Replay its dead letter: once it completes, its result is "
						+ "delivered to this task (resume it, or let its retry reach the wait again)"));
		this.childName = childName;
		this.childKey = childKey;
		this.reason = reason;
		this.discarded = discarded;
	}

	/**
	 * The child's name in the parent's journal.
	 * @return the name
	 */
	public String childName() {
		return this.childName;
	}

	/**
	 * The child's idempotency key.
	 * @return the key
	 */
	public String childKey() {
		return this.childKey;
	}

	/**
	 * Why the child failed.
	 * @return the reason its dead letter or discard gave
	 */
	public String reason() {
		return this.reason;
	}

	/**
	 * Whether the failure is final: the child was discarded (a dead-lettered child may still be
	 * replayed and complete).
	 * @return {@code true} when discarded
	 */
	public boolean isDiscarded() {
		return this.discarded;
	}

}
