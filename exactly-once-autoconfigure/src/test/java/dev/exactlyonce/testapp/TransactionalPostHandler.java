package dev.exactlyonce.testapp;

import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A transactional listener on consumer {@code posts} (with {@code test.posts.enabled}): inserts the
 * task's row into the {@code posts} table through the application's {@code DataSource}, waits at
 * the {@link Ledger}'s gate, and fails its first {@code test.failures} attempts after the insert. With
 * {@code test.posts.in-step} the insert is the durable step {@code insert}.
 */
@ConditionalOnProperty("test.posts.enabled")
public class TransactionalPostHandler {

	private final JdbcTemplate jdbc;

	private final Ledger ledger;

	private final String instance;

	private final int failures;

	private final boolean inStep;

	private final AtomicInteger stepRuns = new AtomicInteger();

	public TransactionalPostHandler(DataSource dataSource, Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.failures:0}") int failures, @Value("${test.posts.in-step:false}") boolean inStep) {
		this.inStep = inStep;
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
		if (this.inStep) {
			context.step("insert", Integer.class, () -> {
				this.stepRuns.incrementAndGet();
				return insert(task);
			});
		}
		else {
			insert(task);
		}
		this.ledger.passGate();
		if (this.ledger.startedOf(task.taskId()) <= this.failures) {
			throw new IllegalStateException("simulated model failure");
		}
		this.ledger.record(attempt);
		return "post for " + task.taskId();
	}

	private int insert(TaskAssignment task) {
		return this.jdbc.update("INSERT INTO posts (task_id, instance) VALUES (?, ?)", task.taskId(), this.instance);
	}

	/** How many times the {@code insert} step's action ran (with {@code test.posts.in-step}). */
	public int stepRuns() {
		return this.stepRuns.get();
	}

}
