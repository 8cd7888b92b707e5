package dev.exactlyonce.testapp;

import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The test listener: records each invocation in the {@link Ledger}, works for
 * {@code test.work-duration}, fails the first {@code test.failures} attempts (with an
 * {@link IllegalArgumentException} when {@code test.failure=illegal-argument}, else an
 * {@link IllegalStateException}), and otherwise records its side effect. With
 * {@code test.ignore-interrupts=true} it works its full duration even when interrupted.
 */
public class RecordingTaskHandler {

	private final Ledger ledger;

	private final String instance;

	private final Duration workDuration;

	private final int failures;

	private final String failure;

	private final boolean ignoreInterrupts;

	public RecordingTaskHandler(Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.work-duration:0s}") Duration workDuration, @Value("${test.failures:0}") int failures,
			@Value("${test.failure:illegal-state}") String failure,
			@Value("${test.ignore-interrupts:false}") boolean ignoreInterrupts) {
		this.ledger = ledger;
		this.instance = instance;
		this.workDuration = workDuration;
		this.failures = failures;
		this.failure = failure;
		this.ignoreInterrupts = ignoreInterrupts;
	}

	@ExactlyOnceListener(consumer = "${test.consumer:worker}", key = "${test.key:}")
	public String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		Ledger.Execution attempt = new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null));
		this.ledger.recordStart(attempt);
		this.ledger.passGate();
		work();
		if (this.ledger.startedOf(task.taskId()) <= this.failures) {
			throw this.failure.equals("illegal-argument") ? new IllegalArgumentException("simulated bad task")
					: new IllegalStateException("simulated model failure");
		}
		this.ledger.record(attempt);
		return "post for " + task.taskId();
	}

	private void work() throws InterruptedException {
		if (!this.ignoreInterrupts) {
			Thread.sleep(this.workDuration.toMillis());
			return;
		}
		long end = System.nanoTime() + this.workDuration.toNanos();
		for (long left = this.workDuration.toNanos(); left > 0; left = end - System.nanoTime()) {
			try {
				Thread.sleep(Duration.ofNanos(left).toMillis() + 1);
			}
			catch (InterruptedException ex) {
				// ignored, as a handler stuck in a call that does not honour interrupts would
			}
		}
	}

}
