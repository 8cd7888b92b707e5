package dev.exactlyonce.testapp;

import java.util.Map;

/**
 * The task payload the test listener receives.
 *
 * @param taskId the task id
 * @param assignee who should do it
 * @param type the kind of task
 * @param payload free-form task data
 */
public record TaskAssignment(String taskId, String assignee, String type, Map<String, Object> payload) {

	public static TaskAssignment of(String taskId) {
		return new TaskAssignment(taskId, "marketing", "blog-post", Map.of());
	}

}
