package dev.exactlyonce.sample;

import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The {@code posts} table of the {@code jdbc} profile (created by
 * {@code schema-posts-postgresql.sql}): the marketing agent's business write, one row per task
 * whose transaction committed.
 */
@Component
@Profile("jdbc")
class PostsTable {

	private final JdbcClient jdbc;

	private final String instanceId;

	PostsTable(JdbcClient jdbc, SampleProperties properties) {
		this.jdbc = jdbc;
		this.instanceId = properties.resolvedInstanceId();
	}

	/**
	 * Inserts a task's post in the caller's transaction.
	 * @param taskId the task
	 * @param sha the commit of its post
	 * @param deliveryCount the delivery it ran on
	 */
	void record(String taskId, String sha, long deliveryCount) {
		this.jdbc.sql("INSERT INTO posts (task_id, commit_sha, instance_id, delivery_count) VALUES (?, ?, ?, ?)")
			.params(taskId, sha, this.instanceId, deliveryCount)
			.update();
	}

}
