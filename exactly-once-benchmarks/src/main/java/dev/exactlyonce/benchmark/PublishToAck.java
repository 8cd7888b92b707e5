package dev.exactlyonce.benchmark;

/**
 * The time from a message's publish to its ack, for runs whose messages are published while the
 * consumer runs. A run's stream holds its messages at sequences 1 to N, so publish times sit in an
 * array allocated before the run.
 */
final class PublishToAck {

	private final long[] published;

	private final LatencyRecorder latency;

	PublishToAck(int messages) {
		this.published = new long[messages + 1];
		this.latency = new LatencyRecorder(messages);
	}

	/** Notes when the message at a stream sequence was published. */
	void published(long sequence, long nanos) {
		this.published[(int) sequence] = nanos;
	}

	/** Records the latency of the message at a stream sequence, acked now; nothing if it was published before the run. */
	void acked(long sequence) {
		long publishedAt = this.published[(int) sequence];
		if (publishedAt != 0) {
			this.latency.recordNanos(System.nanoTime() - publishedAt);
		}
	}

	LatencyRecorder latency() {
		return this.latency;
	}

}
