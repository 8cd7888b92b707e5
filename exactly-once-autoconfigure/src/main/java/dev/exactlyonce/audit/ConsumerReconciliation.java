package dev.exactlyonce.audit;

import java.util.List;

/**
 * The reconciliation of one consumer over a window.
 *
 * @param consumer the durable consumer
 * @param stream its stream
 * @param retention the stream's retention policy
 * @param firstSequence the first stream sequence inspected, or 0 when there was nothing to inspect
 * @param lastSequence the last stream sequence inspected, or 0
 * @param published stream sequences in the inspected range that belong to this consumer
 * @param completed completion records written in the window, or {@code null} when the store cannot
 * list its records
 * @param deadLettered messages dead-lettered in the window
 * @param unfinished messages in the range still on the stream awaiting processing or an ack
 * @param ackFloor the consumer's ack floor (stream sequence) at the time of the run
 * @param pending messages not yet delivered to the consumer at the time of the run
 * @param duplicatesCaughtByStreamDedup publishes to the consumer's subjects (its filter) recognised as
 * duplicates by the stream in the window, as seen by this instance's publisher
 * @param duplicatesCaughtByIdempotencyCheck redeliveries of completed keys acked without running,
 * as seen by this instance
 * @param duplicatesReachedExecution handler runs after a lost or abandoned claim, as seen by this
 * instance (each one is also listed as a discrepancy)
 * @param discrepancies the findings
 * @param notes what this run could not check, and why
 */
public record ConsumerReconciliation(String consumer, String stream, String retention, long firstSequence,
		long lastSequence, long published, Long completed, long deadLettered, long unfinished, long ackFloor,
		long pending, long duplicatesCaughtByStreamDedup, long duplicatesCaughtByIdempotencyCheck,
		long duplicatesReachedExecution, List<Discrepancy> discrepancies, List<String> notes) {

	/**
	 * Whether the books balance: no discrepancy other than dead letters.
	 * @return {@code true} when nothing but dead letters needs a look
	 */
	public boolean balanced() {
		return this.discrepancies.stream().allMatch((d) -> d.type() == Discrepancy.Type.DEAD_LETTERED);
	}

}
