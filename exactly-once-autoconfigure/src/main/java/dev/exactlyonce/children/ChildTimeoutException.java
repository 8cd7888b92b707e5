package dev.exactlyonce.children;

import java.time.Instant;
import java.util.List;

/**
 * A wait for children ended at its timeout with some of them unfinished. The children keep running;
 * their late results are stored but never read by this run of the parent. The same on every replay
 * of the run (the wait is journaled as timed out).
 */
public class ChildTimeoutException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient List<String> unfinished;

	private final transient Instant deadline;

	/**
	 * Creates the exception.
	 * @param waitName the wait's name
	 * @param unfinished the keys of the children that had not finished
	 * @param deadline the wait's deadline
	 */
	public ChildTimeoutException(String waitName, List<String> unfinished, Instant deadline) {
		super("Wait '" + waitName + "' timed out at " + deadline + " with " + unfinished.size() + " child task(s) "
				+ "unfinished " + unfinished + ": they keep running, and their late results are ignored by this run");
		this.unfinished = List.copyOf(unfinished);
		this.deadline = deadline;
	}

	/**
	 * The keys of the children that had not finished.
	 * @return the keys
	 */
	public List<String> unfinished() {
		return this.unfinished;
	}

	/**
	 * The wait's deadline.
	 * @return the deadline, on the NATS server's clock
	 */
	public Instant deadline() {
		return this.deadline;
	}

}
