package dev.exactlyonce.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.exactlyonce.limits.LimitDefinition;
import dev.exactlyonce.limits.LimitUsage;

/**
 * One declared limit's use, as the {@code exactlyonceLimits} health contributor and
 * {@code /actuator/exactlyonce} (the dashboard's Limits view) show it: its kind and capacity per key,
 * the holders, starts and waiters summed over its keys, its longest wait, and its busiest keys.
 *
 * @param name the limit's name
 * @param kind {@code concurrency}, {@code rate} or {@code concurrency and rate}
 * @param concurrency the most holders of one key at once, 0 for none
 * @param rate the most starts of one key per window, 0 for none
 * @param per the rate's window (ISO-8601), or {@code null} without a rate
 * @param maxWaiting the most tasks queued on one key
 * @param keys the keys with an entry
 * @param holders the tasks holding a slot, all keys
 * @param started the tasks started within the rate window, all keys
 * @param waiting the tasks queued, all keys
 * @param oldestWaitingSince when the longest-waiting task arrived, or {@code null}
 * @param oldestWaitingSeconds how long it has waited, on the NATS server's clock, or {@code null}
 * @param busiestKeys the keys with the longest queues (then the most holders), at most 10
 * @param readAt when the limits' bucket was read (it is read at most once per 5 seconds)
 */
public record LimitDescriptor(String name, String kind, int concurrency, int rate, String per, int maxWaiting,
		int keys, int holders, int started, int waiting, Instant oldestWaitingSince, Long oldestWaitingSeconds,
		List<KeyDescriptor> busiestKeys, Instant readAt) {

	/** Said of a key whose entry does not keep it. */
	static final String KEY_NOT_KEPT = "not kept: its entry was written before entries kept their key, and its name "
			+ "is a digest of the key";

	/**
	 * One key of a limit.
	 *
	 * @param key the key as the listener or step gave it (empty for one key for the whole limit)
	 * @param keyKept {@code false} when the entry does not keep its key: {@code key} then says why
	 * @param entry its entry in the {@code EXACTLYONCE_LIMITS} bucket, {@code <limit>.<SHA-256 of the key>}
	 * @param holders the tasks holding a slot of it
	 * @param started the tasks of it started within the rate window
	 * @param waiting the tasks in its queue
	 * @param oldestWaitingSince when its first waiter arrived, or {@code null}
	 * @param oldestWaitingSeconds how long that waiter has waited, or {@code null}
	 */
	public record KeyDescriptor(String key, boolean keyKept, String entry, int holders, int started, int waiting,
			Instant oldestWaitingSince, Long oldestWaitingSeconds) {
	}

	/**
	 * Describes a limit's usage.
	 * @param usage the usage read
	 * @return the descriptor
	 */
	public static LimitDescriptor of(LimitUsage usage) {
		LimitDefinition limit = usage.limit();
		String kind = (limit.concurrency() > 0 && limit.rate() > 0) ? "concurrency and rate"
				: (limit.concurrency() > 0) ? "concurrency" : "rate";
		List<KeyDescriptor> keys = usage.busiest()
			.stream()
			.map((key) -> new KeyDescriptor((key.key() != null) ? key.key() : KEY_NOT_KEPT, key.key() != null,
					key.entry(), key.holders(), key.started(), key.waiting(), key.oldestWaitingSince(),
					age(key.oldestWaitingSince(), usage.readAt())))
			.toList();
		return new LimitDescriptor(limit.name(), kind, limit.concurrency(), limit.rate(),
				(limit.rate() > 0) ? limit.per().toString() : null, limit.maxWaiting(), usage.keys(), usage.holders(),
				usage.started(), usage.waiting(), usage.oldestWaitingSince(),
				age(usage.oldestWaitingSince(), usage.readAt()), keys, usage.readAt());
	}

	private static Long age(Instant since, Instant now) {
		return (since != null) ? Math.max(0, Duration.between(since, now).toSeconds()) : null;
	}

}
