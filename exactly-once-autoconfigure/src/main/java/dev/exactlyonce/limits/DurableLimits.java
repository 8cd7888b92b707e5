package dev.exactlyonce.limits;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.KeyValue;

import dev.exactlyonce.nats.LockedKvBucket;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.MeasuredStoreClock;
import dev.exactlyonce.store.natskv.NatsKvServerTime;
import dev.exactlyonce.waits.DurableWaits;

/**
 * Concurrency and rate limits, assembled over their KV bucket and the durable waits that suspend and
 * resume the tasks over a limit.
 */
public final class DurableLimits {

	/** The limits' KV bucket, shared by every application of the account that declares limits. */
	public static final String BUCKET = "EXACTLYONCE_LIMITS";

	private DurableLimits() {
	}

	/**
	 * Opens the limits, creating their bucket when allowed to.
	 * @param connection the NATS connection
	 * @param store the idempotency store (a slot whose lease ended is freed unless its claim is live)
	 * @param waits the durable waits
	 * @param limits the declared limits by name
	 * @param keepFor how long an idle key's entry is kept
	 * @param requestTimeout how long one bucket operation may take
	 * @param create whether a missing bucket is created
	 * @param meters told when a task starts under a limit
	 * @return what the pipeline calls
	 * @throws IllegalStateException when NATS refused or did not answer
	 */
	public static NatsTaskLimits open(Connection connection, IdempotencyStore store, DurableWaits waits,
			Map<String, LimitDefinition> limits, Duration keepFor, Duration requestTimeout, boolean create,
			LimitsMeters meters) {
		KeyValue kv = LockedKvBucket.open(connection, new LockedKvBucket.Spec(BUCKET, "the limits' bucket",
				"exactly-once: the holders and queue of each key of each limit", keepFor, requestTimeout, create,
				", or remove the exactlyonce.limits.* declarations."));
		return new NatsTaskLimits(limits, new LimitEntries(kv, connection.getServerInfo().getMaxPayload()), store,
				new MeasuredStoreClock(Clock.systemUTC(), new NatsKvServerTime(kv)), waits::wakeLimited, meters);
	}

}
