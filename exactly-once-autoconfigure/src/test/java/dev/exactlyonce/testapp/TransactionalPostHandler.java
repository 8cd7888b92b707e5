package dev.exactlyonce.testapp;

import java.time.Duration;
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
 * {@code test.posts.in-step} the insert is the durable step {@code insert}; with
 * {@code test.posts.summary-delay} the result's {@code toString()} takes that long; with
 * {@code test.posts.read-first} it counts the task's rows before the step, as most handlers read
 * before they write (which starts a snapshot at REPEATABLE READ); with {@code test.posts.await-approval}
 * it then awaits the signal {@code approval} (a boolean) that long.
 */
@ConditionalOnProperty("test.posts.enabled")
public class TransactionalPostHandler {

	private final JdbcTemplate jdbc;

	private final Ledger ledger;

	private final String instance;

	private final int failures;

	private final boolean inStep;

	private final Duration summaryDelay;

	private final boolean readFirst;

	private final Duration awaitApproval;

	private final AtomicInteger stepRuns = new AtomicInteger();

	public TransactionalPostHandler(DataSource dataSource, Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.failures:0}") int failures, @Value("${test.posts.in-step:false}") boolean inStep,
			@Value("${test.posts.summary-delay:0ms}") Duration summaryDelay,
			@Value("${test.posts.read-first:false}") boolean readFirst,
			@Value("${test.posts.await-approval:0ms}") Duration awaitApproval) {
		this.readFirst = readFirst;
		this.awaitApproval = awaitApproval;
		this.inStep = inStep;
		this.summaryDelay = summaryDelay;
		this.jdbc = new JdbcTemplate(dataSource);
		this.ledger = ledger;
		this.instance = instance;
		this.failures = failures;
	}

	@ExactlyOnceListener(consumer = "posts", key = "payload.taskId", transactional = true)
	public Object handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		Ledger.Execution attempt = new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null));
		this.ledger.recordStart(attempt);
		if (this.readFirst) {
			this.jdbc.queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?", Integer.class, task.taskId());
		}
		if (this.inStep) {
			context.step("insert", Integer.class, () -> {
				this.stepRuns.incrementAndGet();
				return insert(task);
			});
		}
		else {
			insert(task);
		}
		if (!this.awaitApproval.isZero()) {
			context.awaitSignal("approval", Boolean.class, this.awaitApproval);
		}
		this.ledger.passGate();
		if (this.ledger.startedOf(task.taskId()) <= this.failures) {
			throw new IllegalStateException("simulated model failure");
		}
		this.ledger.record(attempt);
		String summary = "post for " + task.taskId();
		return this.summaryDelay.isZero() ? summary : new SlowSummary(summary, this.summaryDelay);
	}

	/** A result whose {@code toString()} takes a while, as a JPA entity loading lazy fields when printed. */
	private record SlowSummary(String text, Duration delay) {

		@Override
		public String toString() {
			try {
				Thread.sleep(this.delay.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return this.text;
		}

	}

	private int insert(TaskAssignment task) {
		return this.jdbc.update("INSERT INTO posts (task_id, instance) VALUES (?, ?)", task.taskId(), this.instance);
	}

	/** How many times the {@code insert} step's action ran (with {@code test.posts.in-step}). */
	public int stepRuns() {
		return this.stepRuns.get();
	}

}
