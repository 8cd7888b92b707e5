package dev.exactlyonce.operations;

/**
 * The pipeline's counts of one month, summed over every instance: what the monthly table shows.
 *
 * @param published tasks stored by {@code ExactlyOncePublisher} (not counting duplicates)
 * @param completed deliveries that ran the handler and were recorded completed
 * @param caughtByStreamDedup publishes the stream recognised as duplicates (its {@code Nats-Msg-Id} dedup)
 * @param caughtByIdempotencyCheck deliveries of completed keys, acked without running the handler
 * @param reachedExecution handler runs that duplicated an earlier run: a lost claim (zombie) or a rerun
 * after an abandoned attempt
 */
public record MonthlyCounts(long published, long completed, long caughtByStreamDedup, long caughtByIdempotencyCheck,
		long reachedExecution) {

	/** No events. */
	public static final MonthlyCounts ZERO = new MonthlyCounts(0, 0, 0, 0, 0);

	/**
	 * The sum of these counts and others.
	 * @param other the other counts
	 * @return the sum
	 */
	public MonthlyCounts plus(MonthlyCounts other) {
		return new MonthlyCounts(this.published + other.published, this.completed + other.completed,
				this.caughtByStreamDedup + other.caughtByStreamDedup,
				this.caughtByIdempotencyCheck + other.caughtByIdempotencyCheck,
				this.reachedExecution + other.reachedExecution);
	}

	/**
	 * Duplicates that reached execution per completed task: the share of work done twice.
	 * @return the rate (0 when nothing completed)
	 */
	public double netDuplicationRate() {
		return (this.completed > 0) ? (double) this.reachedExecution / this.completed : 0;
	}

}
