package dev.exactlyonce.audit;

import java.time.Instant;
import java.util.List;

/**
 * The result of one reconciliation run over every declared consumer.
 *
 * @param from the start of the window (inclusive)
 * @param to the end of the window (exclusive), the time of the run
 * @param tookMillis how long the run took
 * @param consumers one entry per declared consumer
 * @param error why the run failed, or {@code null}
 */
public record ReconciliationReport(Instant from, Instant to, long tookMillis, List<ConsumerReconciliation> consumers,
		String error) {

	/**
	 * The number of findings across all consumers, dead letters excluded.
	 * @return the count
	 */
	public long discrepancies() {
		return this.consumers.stream()
			.flatMap((consumer) -> consumer.discrepancies().stream())
			.filter((d) -> d.type() != Discrepancy.Type.DEAD_LETTERED)
			.count();
	}

}
