package dev.exactlyonce.sample;

import java.util.Map;

/**
 * A task the CEO agent assigns to another agent.
 *
 * @param taskId the task id; also its message id, so publishing it twice stores it once
 * @param assignee the agent that should do it, e.g. {@code marketing}
 * @param type the kind of task, e.g. {@code blog-post}
 * @param payload free-form task data
 */
public record TaskAssignment(String taskId, String assignee, String type, Map<String, Object> payload) {
}
