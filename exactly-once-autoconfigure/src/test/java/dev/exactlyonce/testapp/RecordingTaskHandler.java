package dev.exactlyonce.testapp;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The test listener: records each invocation in the {@link Ledger}, works for
 * {@code test.work-duration}, fails the first {@code test.failures} attempts (with an
 * {@link IllegalArgumentException} when {@code test.failure=illegal-argument}, else an
 * {@link IllegalStateException}; with the message {@code test.failure-message} when set), and
 * otherwise records its side effect.
 */
public class RecordingTaskHandler {

	private final Ledger ledger;

	private final String instance;

	private final Duration workDuration;

	private final int failures;

	private final String failure;

	private final String failureMessage;

	public RecordingTaskHandler(Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.work-duration:0s}") Duration workDuration, @Value("${test.failures:0}") int failures,
			@Value("${test.failure:illegal-state}") String failure, @Value("${test.failure-message:}") String failureMessage) {
		this.ledger = ledger;
		this.instance = instance;
		this.workDuration = workDuration;
		this.failures = failures;
		this.failure = failure;
		this.failureMessage = failureMessage;
	}

	@ExactlyOnceListener(consumer = "${test.consumer:worker}", key = "${test.key:}")
	public String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		Ledger.Execution attempt = new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null));
		this.ledger.recordStart(attempt);
		this.ledger.passGate();
		Thread.sleep(this.workDuration.toMillis());
		if (this.ledger.startedOf(task.taskId()) <= this.failures) {
			throw this.failure.equals("illegal-argument")
					? new IllegalArgumentException(messageOr("simulated bad task"))
					: new IllegalStateException(messageOr("simulated model failure"));
		}
		this.ledger.record(attempt);
		return "post for " + task.taskId();
	}

	private String messageOr(String defaultMessage) {
		return this.failureMessage.isEmpty() ? defaultMessage : this.failureMessage;
	}

}
