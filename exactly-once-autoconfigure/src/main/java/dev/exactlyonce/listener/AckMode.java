package dev.exactlyonce.listener;

/**
 * How a delivery is acknowledged once its completion record is durable. Both are safe: a lost
 * ack only causes a redelivery, which is acknowledged as a duplicate without running.
 */
public enum AckMode {

	/** {@code ackSync}: wait for the server to confirm (one round trip per message). */
	SYNC,

	/** {@code ack}: fire and forget; faster, a lost ack shows up as a duplicate redelivery. */
	ASYNC

}
