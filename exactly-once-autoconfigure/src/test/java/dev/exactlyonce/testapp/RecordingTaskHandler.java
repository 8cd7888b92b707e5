package dev.exactlyonce.testapp;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The test listener: records each execution in the {@link Ledger}, then works for
 * {@code test.work-duration}, optionally failing the first {@code test.failures} attempts.
 */
public class RecordingTaskHandler {

	private final Ledger ledger;

	private final String instance;

	private final Duration workDuration;

	private final int failures;

	public RecordingTaskHandler(Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.work-duration:0s}") Duration workDuration, @Value("${test.failures:0}") int failures) {
		this.ledger = ledger;
		this.instance = instance;
		this.workDuration = workDuration;
		this.failures = failures;
	}

	@ExactlyOnceListener(consumer = "${test.consumer:worker}", key = "${test.key:}")
	public String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		this.ledger.record(new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null)));
		this.ledger.passGate();
		Thread.sleep(this.workDuration.toMillis());
		if (this.ledger.executionsOf(task.taskId()) <= this.failures) {
			throw new IllegalStateException("simulated model failure");
		}
		return "post for " + task.taskId();
	}

}
