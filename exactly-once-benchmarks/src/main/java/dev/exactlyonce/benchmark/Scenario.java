package dev.exactlyonce.benchmark;

import java.time.Duration;

/**
 * One benchmarked configuration: a way of consuming, a concurrency and a handler cost.
 *
 * @param consumer how messages are consumed: {@code raw ack()}, {@code raw ackSync} or an
 * exactly-once store type with its ack mode
 * @param concurrency parallel workers
 * @param workMillis the fixed cost of the handler
 * @param messages messages per measured run
 * @param offeredRate messages per second published while the listener runs, or 0 to publish them
 * all before it starts (a closed loop: the run measures the most it can take)
 */
record Scenario(ConsumerKind consumer, int concurrency, int workMillis, int messages, double offeredRate) {

	Scenario(ConsumerKind consumer, int concurrency, int workMillis, int messages) {
		this(consumer, concurrency, workMillis, messages, 0);
	}

	/** This scenario with messages published at a rate while the listener runs, for a duration. */
	Scenario underLoad(double rate, Duration duration) {
		return new Scenario(this.consumer, this.concurrency, this.workMillis,
				(int) Math.max(100, rate * duration.toMillis() / 1000), rate);
	}

	String label() {
		return this.consumer.label() + ", c=" + this.concurrency + ", handler " + this.workMillis + " ms";
	}

	/**
	 * How the scenario consumes.
	 *
	 * @param label the name printed in the tables
	 * @param store the exactly-once store type, {@value #FLOOR} for the floor (raw jnats writing a claim
	 * and a completion to a NATS KV bucket before each ack), or {@code null} for raw jnats
	 * @param syncAck whether acks wait for the server's confirmation
	 * @param pipelined whether completion records and acks are written off the handler threads
	 * ({@code exactlyonce.listener.pipelined})
	 */
	record ConsumerKind(String label, String store, boolean syncAck, boolean pipelined) {

		/** The store name of the floor row. */
		static final String FLOOR = "floor";

		boolean raw() {
			return this.store == null;
		}

		boolean floor() {
			return FLOOR.equals(this.store);
		}

		/** Whether plain jnats consumes: raw, or the floor. */
		boolean handWritten() {
			return raw() || floor();
		}

	}

}
