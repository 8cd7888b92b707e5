package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.List;

/**
 * What one row of the matrix measured.
 *
 * @param row the row
 * @param tasks tasks published (distinct ids)
 * @param injections faults injected (halts, pauses, kills)
 * @param executions side effects in the ledgers
 * @param duplicates executions beyond the first, summed over tasks
 * @param lost tasks with no execution and no dead letter
 * @param deadLettered tasks with a dead letter (with its reason)
 * @param unexpected anything that should not exist: ledger lines of unknown tasks, dead letters
 * without a reason, a task stored twice, a consumer that died without being told to
 * @param publisherKills publisher JVMs killed mid-batch
 * @param republishedDuplicates publishes the stream recognised as duplicates
 * @param notes further observations (claims lost, progress with a node down, dead-letter reasons)
 * @param elapsed how long the row took
 */
public record RowResult(FaultRow row, int tasks, int injections, int executions, int duplicates, int lost,
		int deadLettered, List<String> unexpected, int publisherKills, int republishedDuplicates, List<String> notes,
		Duration elapsed) {

	/** Whether the row holds what users rely on: nothing lost, nothing unexpected, no duplicate unless by design. */
	public boolean holds() {
		return this.lost == 0 && this.unexpected.isEmpty() && (this.duplicates == 0 || this.row.mayDuplicate());
	}

}
