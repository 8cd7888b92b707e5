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
 * @param sideEffects what the agents did: commits, model calls (drafts), deploys
 * @param stuck tasks with no execution and no dead letter whose message is still in the stream at
 * the end (not lost, but not settled when the row ended either)
 * @param skipped why the row did not run (no network namespaces here), or {@code null} when it ran
 * @param posts the business rows in the database ({@code --store=jdbc}), else {@link PostRows#NONE}
 * @param pipelined whether the consumers ran {@code exactlyonce.listener.pipelined}
 */
public record RowResult(FaultRow row, int tasks, int injections, int executions, int duplicates, int lost,
		int deadLettered, List<String> unexpected, int publisherKills, int republishedDuplicates, List<String> notes,
		Duration elapsed, SideEffects sideEffects, int stuck, String skipped, PostRows posts, boolean pipelined) {

	/**
	 * The result of a row that could not run here.
	 * @param row the row
	 * @param reason why, printed with the matrix
	 * @return a result with nothing counted
	 */
	public static RowResult skipped(FaultRow row, String reason) {
		return new RowResult(row, 0, 0, 0, 0, 0, 0, List.of(), 0, 0, List.of(), Duration.ZERO, SideEffects.NONE, 0,
				reason, PostRows.NONE, false);
	}

	/**
	 * Whether the row holds what users rely on: nothing lost, nothing unexpected, no handler re-run,
	 * second commit or model call unless the row names that window (then at most one per
	 * injection; pipelined, a handler re-run in every row that stops a consumer JVM), never a second deploy task (a deploy run twice only where a consumer JVM died),
	 * and the first draft committed unless the model was called again; nothing stuck; on a database,
	 * never a business row committed twice. A skipped row holds nothing.
	 */
	public boolean holds() {
		return this.skipped == null && this.lost == 0 && this.stuck == 0 && this.unexpected.isEmpty()
				&& withinInjections(this.duplicates, this.row.mayDuplicate(this.pipelined))
				&& withinInjections(this.sideEffects.duplicateCommits(), this.row.mayRepeatCommit())
				&& withinInjections(this.sideEffects.extraDrafts(), this.row.mayRepeatModelCall())
				&& withinInjections(this.sideEffects.notFirstDraft(), this.row.mayRepeatModelCall())
				&& withinInjections(this.sideEffects.duplicateDeploys(), this.row.mayRepeatDeploy())
				&& this.sideEffects.duplicateDeployMessages() == 0 && this.posts.duplicates() == 0;
	}

	private boolean withinInjections(int count, boolean byDesign) {
		return count == 0 || (byDesign && count <= this.injections);
	}

}
