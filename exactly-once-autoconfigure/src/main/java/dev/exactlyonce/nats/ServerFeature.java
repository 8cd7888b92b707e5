package dev.exactlyonce.nats;

/**
 * A nats-server feature newer than 2.9 that bears on this starter's guarantees, with the release
 * that brought it. The starter uses none of them (docs/compatibility.md says why per feature);
 * {@link NatsServerCapabilities} tells which ones the connected server offers.
 */
public enum ServerFeature {

	/** {@code Nats-TTL} on a message of a stream with {@code allow_msg_ttl} (KV: per-key TTL). */
	PER_MESSAGE_TTL("2.11", "per-message TTL"),

	/** {@code subject_delete_marker_ttl} (KV: limit markers) for keys removed by their age. */
	SUBJECT_DELETE_MARKERS("2.11", "subject delete markers"),

	/** Consumer priority groups (pinned client, overflow). */
	PRIORITY_GROUPS("2.11", "consumer priority groups"),

	/** {@code Nats-Expected-Last-Subject-Sequence-Subject}: the expected sequence of another subject. */
	EXPECTED_LAST_SUBJECT_SEQUENCE_SUBJECT("2.11", "expected last sequence of another subject"),

	/** All-or-nothing batches into one stream with {@code allow_atomic}. */
	ATOMIC_BATCH_PUBLISH("2.12", "atomic batch publish"),

	/** Delayed and repeating messages ({@code Nats-Schedule}) in a stream with {@code allow_msg_schedules}. */
	MESSAGE_SCHEDULES("2.12", "message schedules"),

	/** Server-side counters ({@code Nats-Incr}) in a stream with {@code allow_msg_counter}. */
	MESSAGE_COUNTERS("2.12", "message counters"),

	/** Non-atomic fast-ingest batches with flow control, in a stream with {@code allow_batched}. */
	FAST_INGEST_BATCH("2.14", "fast-ingest batch publish");

	private final String since;

	private final String description;

	ServerFeature(String since, String description) {
		this.since = since;
		this.description = description;
	}

	/**
	 * The first nats-server release with the feature.
	 * @return major.minor, e.g. {@code 2.11}
	 */
	public String since() {
		return this.since;
	}

	/**
	 * What the feature is, in a few words.
	 * @return the description
	 */
	public String description() {
		return this.description;
	}

}
