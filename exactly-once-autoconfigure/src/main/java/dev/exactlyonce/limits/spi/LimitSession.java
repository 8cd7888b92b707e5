package dev.exactlyonce.limits.spi;

import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * The limits one claimed delivery holds: each {@link #enter} takes a slot (and a token) of a limit's
 * key or suspends the task; {@link #close()} gives back what it still holds.
 */
public interface LimitSession extends AutoCloseable {

	/**
	 * Takes a slot and a token of a limit's key for this task, or queues it and suspends it. A
	 * concurrency limit's key this task holds already is entered again without taking anything: the
	 * inner holder shares the slot, given back when the last holder leaves (or at {@link #close()}).
	 * @param limit the limit's name ({@code exactlyonce.limits.<name>})
	 * @param key the key within the limit; empty for one key for the whole limit
	 * @throws WaitSuspension when the limit is reached: the task waits, holding nothing, and runs
	 * again from the top when its turn comes
	 * @throws IllegalArgumentException when the limit is not declared
	 */
	void enter(String limit, String key);

	/**
	 * Gives back the slot this task holds of a limit's key (a step's limit, when the step ended).
	 * @param limit the limit's name
	 * @param key the key within the limit
	 */
	void leave(String limit, String key);

	/**
	 * The suspension a limit of this session threw, so that the pipeline suspends the task even when
	 * the handler swallowed it.
	 * @return the first suspension thrown, or {@code null}
	 */
	WaitSuspension thrown();

	/**
	 * Gives back every slot still held and, when the task was queued, looks once more whether its
	 * turn came while it was being suspended. Never throws.
	 */
	@Override
	void close();

}
