package dev.exactlyonce.faults;

import java.util.Map;

/**
 * The business rows a row's tasks left in the {@code posts} table of the sample's {@code jdbc}
 * profile, counted by a JDBC query: the side effect that commits with the completion record.
 *
 * @param perTask rows per task id (tasks without a row are absent)
 * @param measured whether the row ran on a database at all
 */
public record PostRows(Map<String, Integer> perTask, boolean measured) {

	/** Nothing measured: the row ran on a store without the {@code posts} table. */
	public static final PostRows NONE = new PostRows(Map.of(), false);

	/** Rows in total. */
	public int total() {
		return this.perTask.values().stream().mapToInt(Integer::intValue).sum();
	}

	/** Rows beyond the first, summed over tasks: a business write committed twice. */
	public int duplicates() {
		return this.perTask.values().stream().mapToInt((rows) -> Math.max(0, rows - 1)).sum();
	}

	/**
	 * Whether a task has its row; always true when nothing was measured.
	 * @param taskId the task
	 * @return whether it has a row
	 */
	public boolean has(String taskId) {
		return !this.measured || this.perTask.containsKey(taskId);
	}

}
