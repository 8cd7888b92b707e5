package dev.exactlyonce.waits.spi;

import java.time.Instant;

/**
 * Unwinds a handler that reached a durable wait which cannot end yet ({@link dev.exactlyonce.listener.ExactlyOnceContext#sleep},
 * {@link dev.exactlyonce.listener.ExactlyOnceContext#awaitSignal}), so that the pipeline suspends its task: journaled, its
 * record {@code WAITING}, its message acknowledged, no thread, ack slot or lease held. The handler
 * runs again from the top when the wait ends. An {@link Error}, so that {@code catch (Exception ex)}
 * lets it through: never catch it, or rethrow it when you catch {@link Throwable}.
 */
public final class WaitSuspension extends Error {

	private static final long serialVersionUID = 1L;

	private final transient String waitName;

	private final transient String kind;

	private final transient Instant until;

	/**
	 * Creates the suspension.
	 * @param waitName the wait's name
	 * @param kind what kind of wait it is, e.g. {@code signal} or {@code sleep}
	 * @param until when the wait ends at the latest
	 */
	public WaitSuspension(String waitName, String kind, Instant until) {
		super("The task waits for " + kind + " '" + waitName + "' until " + until + ": it is suspended and runs "
				+ "again from the top when the wait ends", null, false, false);
		this.waitName = waitName;
		this.kind = kind;
		this.until = until;
	}

	/**
	 * The wait's name.
	 * @return the name
	 */
	public String waitName() {
		return this.waitName;
	}

	/**
	 * What kind of wait it is.
	 * @return e.g. {@code signal} or {@code sleep}
	 */
	public String kind() {
		return this.kind;
	}

	/**
	 * What the task waits for.
	 * @return e.g. {@code signal 'approval' until 2026-12-06T10:00:00Z}
	 */
	public String waitingFor() {
		return this.kind + " '" + this.waitName + "' until " + this.until;
	}

	/**
	 * When the wait ends at the latest, on the server's clock.
	 * @return the deadline
	 */
	public Instant until() {
		return this.until;
	}

	/**
	 * The suspension a handler's failure carries: itself, or a cause of it (a handler, or a library
	 * between the handler and the wait, wrapped it), so the task suspends rather than failing.
	 * @param failure what the handler threw
	 * @return the suspension, or {@code null} when it carries none
	 */
	public static WaitSuspension in(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof WaitSuspension suspension) {
				return suspension;
			}
		}
		return null;
	}

}
