package dev.exactlyonce.limits;

import java.time.Instant;
import java.util.List;

/**
 * How much of a limit is in use, summed over its keys, as its KV entries say (a slot whose holder died
 * counts until a task next takes or gives back one of that key).
 *
 * @param limit the limit
 * @param keys the keys with an entry (the first 1,000 are read)
 * @param holders the tasks holding a slot
 * @param waiting the tasks queued
 * @param started the tasks started within the rate window (0 without a rate)
 * @param oldestWaitingSince when the longest-waiting task arrived, or {@code null} when none waits
 * @param busiest the keys with the longest queues (then the most holders), at most
 * {@link #BUSIEST_KEYS}
 * @param readAt when the entries were read, on the NATS server's clock (ages are from it)
 */
public record LimitUsage(LimitDefinition limit, int keys, int holders, int waiting, int started,
		Instant oldestWaitingSince, List<KeyUsage> busiest, Instant readAt) {

	/** The most keys a usage lists. */
	public static final int BUSIEST_KEYS = 10;

	/**
	 * One key of a limit.
	 *
	 * @param key the key as the listener or step gave it, or {@code null} when its entry was written
	 * before entries kept their key (the entry's name is a digest of the key, which cannot be undone)
	 * @param entry the key's entry in the limits' KV bucket, {@code <limit>.<SHA-256 of the key>}
	 * @param holders the tasks holding a slot of it
	 * @param waiting the tasks in its queue
	 * @param started the tasks of it started within the rate window (0 without a rate)
	 * @param oldestWaitingSince when its first waiter arrived, or {@code null}
	 */
	public record KeyUsage(String key, String entry, int holders, int waiting, int started,
			Instant oldestWaitingSince) {
	}

}
