package dev.exactlyonce.testapp;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A transactional listener on consumer {@code posts} (with {@code test.posts.enabled}): inserts the
 * task's row into the {@code posts} table through the application's {@code DataSource}, waits at
 * the {@link Ledger}'s gate, and fails its first {@code test.failures} attempts after the insert.
 */
@ConditionalOnProperty("test.posts.enabled")
public class TransactionalPostHandler {

	private final JdbcTemplate jdbc;

	private final Ledger ledger;

	private final String instance;

	private final int failures;

	public TransactionalPostHandler(DataSource dataSource, Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.failures:0}") int failures) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.ledger = ledger;
		this.instance = instance;
		this.failures = failures;
	}

	@ExactlyOnceListener(consumer = "posts", key = "payload.taskId", transactional = true)
	public String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		Ledger.Execution attempt = new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null));
		this.ledger.recordStart(attempt);
		this.jdbc.update("INSERT INTO posts (task_id, instance) VALUES (?, ?)", task.taskId(), this.instance);
		this.ledger.passGate();
		if (this.ledger.startedOf(task.taskId()) <= this.failures) {
			throw new IllegalStateException("simulated model failure");
		}
		this.ledger.record(attempt);
		return "post for " + task.taskId();
	}

}
