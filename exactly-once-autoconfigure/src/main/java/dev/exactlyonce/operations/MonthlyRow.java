package dev.exactlyonce.operations;

/**
 * One row of the fleet-wide monthly table.
 *
 * @param month the month, {@code yyyy-MM} (UTC)
 * @param published tasks published (stored once each)
 * @param completed tasks completed
 * @param duplicatesCaughtByStreamDedup duplicate publishes the stream dropped
 * @param duplicatesCaughtByIdempotencyCheck duplicate deliveries acked without running
 * @param duplicatesReachedExecution duplicate handler runs
 * @param netDuplicationRate duplicates that reached execution per completed task
 */
public record MonthlyRow(String month, long published, long completed, long duplicatesCaughtByStreamDedup,
		long duplicatesCaughtByIdempotencyCheck, long duplicatesReachedExecution, double netDuplicationRate) {

	/**
	 * The row of a month's counts.
	 * @param month the month
	 * @param counts its counts
	 * @return the row
	 */
	public static MonthlyRow of(String month, MonthlyCounts counts) {
		return new MonthlyRow(month, counts.published(), counts.completed(), counts.caughtByStreamDedup(),
				counts.caughtByIdempotencyCheck(), counts.reachedExecution(), counts.netDuplicationRate());
	}

}
