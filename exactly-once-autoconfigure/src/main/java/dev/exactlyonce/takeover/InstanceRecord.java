package dev.exactlyonce.takeover;

import java.util.List;

/**
 * What a live incarnation keeps in the instances bucket, rewritten as its tasks change and at
 * least once a heartbeat.
 *
 * @param instanceId the instance id
 * @param incarnation the incarnation
 * @param tasks the tasks it ran when it wrote this
 */
public record InstanceRecord(String instanceId, String incarnation, List<RunningTask> tasks) {

	/**
	 * Creates a record; {@code null} tasks are none.
	 */
	public InstanceRecord {
		tasks = (tasks != null) ? List.copyOf(tasks) : List.of();
	}

}
