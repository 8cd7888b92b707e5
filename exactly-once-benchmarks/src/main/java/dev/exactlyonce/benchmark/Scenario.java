package dev.exactlyonce.benchmark;

/**
 * One benchmarked configuration: a way of consuming, a concurrency and a handler cost.
 *
 * @param consumer how messages are consumed: {@code raw ack()}, {@code raw ackSync} or an
 * exactly-once store type with its ack mode
 * @param concurrency parallel workers
 * @param workMillis the fixed cost of the handler
 * @param messages messages per measured run
 */
record Scenario(ConsumerKind consumer, int concurrency, int workMillis, int messages) {

	String label() {
		return this.consumer.label() + ", c=" + this.concurrency + ", handler " + this.workMillis + " ms";
	}

	/**
	 * How the scenario consumes.
	 *
	 * @param label the name printed in the tables
	 * @param store the exactly-once store type, or {@code null} for raw jnats
	 * @param syncAck whether acks wait for the server's confirmation
	 * @param pipelined whether completion records and acks are written off the handler threads
	 * ({@code exactlyonce.listener.pipelined})
	 */
	record ConsumerKind(String label, String store, boolean syncAck, boolean pipelined) {

		boolean raw() {
			return this.store == null;
		}

	}

}
