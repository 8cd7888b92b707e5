package dev.exactlyonce.actuate;

/**
 * The names of every meter the starter registers. They are part of the public API: dashboards
 * and alerts depend on them, so they only ever change with a major version.
 */
public final class ExactlyOnceMeters {

	/** Counter of settled deliveries, tagged {@code stream}, {@code consumer}, {@code outcome}. */
	public static final String MESSAGES = "exactlyonce.messages";

	/** Timer of the listener method's own run time, tagged {@code stream}, {@code consumer}. */
	public static final String HANDLER_DURATION = "exactlyonce.handler.duration";

	/** Timer of idempotency store operations, tagged {@code store}, {@code op}, {@code outcome}. */
	public static final String STORE_LATENCY = "exactlyonce.store.latency";

	/** Timer of synchronous acks, tagged {@code stream}, {@code consumer}. */
	public static final String ACK_LATENCY = "exactlyonce.ack.latency";

	/** Counter of working acks sent, tagged {@code stream}, {@code consumer}, {@code lease}. */
	public static final String WORKING_ACKS = "exactlyonce.working.acks";

	/** Counter of claims taken over while their handler ran, tagged {@code stream}, {@code consumer}. */
	public static final String CLAIMS_LOST = "exactlyonce.claims.lost";

	/** Counter of abandoned claims taken over, tagged {@code stream}, {@code consumer}. */
	public static final String CLAIMS_ABANDONED = "exactlyonce.claims.abandoned";

	/**
	 * Counter of durable steps run by handlers, tagged {@code stream}, {@code consumer},
	 * {@code outcome} (executed|replayed|probe_found|probe_absent).
	 */
	public static final String STEPS = "exactlyonce.steps";

	/** Counter of confirmed publishes, tagged {@code stream}, {@code outcome} (stored|duplicate). */
	public static final String PUBLISH = "exactlyonce.publish";

	/**
	 * Counter of messages the NATS client could not decode (each stopped the connection's reader
	 * and caused a reconnect).
	 */
	public static final String UNDECODABLE_MESSAGES = "exactlyonce.nats.undecodable.messages";

	/** Gauge of messages not yet delivered to a consumer, tagged {@code stream}, {@code consumer}. */
	public static final String CONSUMER_PENDING = "exactlyonce.consumer.pending";

	/** Gauge of delivered, unacknowledged messages, tagged {@code stream}, {@code consumer}. */
	public static final String CONSUMER_ACK_PENDING = "exactlyonce.consumer.ack.pending";

	/** Gauge of messages delivered more than once, tagged {@code stream}, {@code consumer}. */
	public static final String CONSUMER_REDELIVERED = "exactlyonce.consumer.redelivered";

	/**
	 * Gauge of the last reconciliation's message counts, tagged {@code stream}, {@code consumer},
	 * {@code state}.
	 */
	public static final String RECONCILIATION_MESSAGES = "exactlyonce.reconciliation.messages";

	/**
	 * Gauge of the last reconciliation's discrepancies, tagged {@code stream}, {@code consumer},
	 * {@code type}.
	 */
	public static final String RECONCILIATION_DISCREPANCIES = "exactlyonce.reconciliation.discrepancies";

	/** Counter of reconciliation runs, tagged {@code outcome} (success|failure). */
	public static final String RECONCILIATION_RUNS = "exactlyonce.reconciliation.runs";

	/**
	 * Counter of suspended tasks reopened because their durable wait ended (a signal, a timeout, the
	 * end of a sleep), tagged {@code stream}, {@code consumer}. Suspensions are the {@code suspended}
	 * outcome of {@link #MESSAGES}.
	 */
	public static final String WAITS_RESUMED = "exactlyonce.waits.resumed";

	/**
	 * Timer of how long tasks waited for a slot or token of a limit before they started (zero when
	 * they did not wait), tagged {@code limit}.
	 */
	public static final String LIMITS_WAIT = "exactlyonce.limits.wait";

	/**
	 * Gauge of the tasks holding a slot of a limit, all keys and instances (its bucket read at most once
	 * per 5 seconds), tagged {@code limit}.
	 */
	public static final String LIMITS_IN_USE = "exactlyonce.limits.in.use";

	/**
	 * Gauge of the tasks queued at a limit, all keys and instances (its bucket read at most once per 5
	 * seconds), tagged {@code limit}.
	 */
	public static final String LIMITS_WAITING = "exactlyonce.limits.waiting";

	/**
	 * Gauge of tasks suspended at a durable wait, all instances (a count of the store's WAITING
	 * records, at most once a minute), tagged {@code stream}, {@code consumer}.
	 */
	public static final String WAITS_WAITING = "exactlyonce.waits.waiting";

	private ExactlyOnceMeters() {
	}

}
