package dev.exactlyonce.operations;

import java.util.List;

/**
 * One page of a consumer's tasks in one status, newest attempt first.
 *
 * @param consumer the consumer
 * @param status the status listed
 * @param supported whether the store can list its records; when not, {@code tasks} is empty,
 * {@code total} is 0 and {@code note} says why
 * @param page the page number (0 for the first)
 * @param size the most tasks on a page
 * @param total how many tasks of the consumer are in the status now
 * @param tasks the tasks on this page
 * @param note what could not be listed, or {@code null}
 */
public record TaskPage(String consumer, TaskStatus status, boolean supported, int page, int size, long total,
		List<TaskView> tasks, String note) {
}
