package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.Set;

import org.springframework.beans.factory.annotation.Value;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The test listener: records each invocation in the {@link Ledger}, works for
 * {@code test.work-duration}, fails the first {@code test.failures} attempts (with an
 * {@link IllegalArgumentException} when {@code test.failure=illegal-argument}, one whose
 * {@code getMessage()} throws when {@code test.failure=unreadable-message}, else an
 * {@link IllegalStateException}; with the message {@code test.failure-message} when set) and every attempt of the tasks listed in
 * {@code test.always-failing} (until {@link Ledger#fix}), and otherwise records its side effect.
 * When interrupted mid-work it
 * throws the {@link InterruptedException}, or with {@code test.on-interrupt=restore-and-fail} or
 * {@code restore-and-finish} restores the thread's interrupt flag, as well-behaved code does, and
 * then fails or finishes its work; with {@code test.on-interrupt=ignore} it works its full duration,
 * as a handler stuck in a call that does not honour interrupts would. With
 * {@code test.unprintable-result=true} it returns a result whose {@code toString()} throws.
 */
public class RecordingTaskHandler {

	private final Ledger ledger;

	private final String instance;

	private final Duration workDuration;

	private final int failures;

	private final String failure;

	private final Set<String> alwaysFailing;

	private final String onInterrupt;

	private final String failureMessage;

	private final boolean unprintableResult;

	public RecordingTaskHandler(Ledger ledger, @Value("${test.instance:a}") String instance,
			@Value("${test.work-duration:0s}") Duration workDuration, @Value("${test.failures:0}") int failures,
			@Value("${test.failure:illegal-state}") String failure,
			@Value("${test.always-failing:}") Set<String> alwaysFailing,
			@Value("${test.on-interrupt:throw}") String onInterrupt,
			@Value("${test.failure-message:}") String failureMessage,
			@Value("${test.unprintable-result:false}") boolean unprintableResult) {
		this.ledger = ledger;
		this.instance = instance;
		this.workDuration = workDuration;
		this.failures = failures;
		this.failure = failure;
		this.alwaysFailing = alwaysFailing;
		this.onInterrupt = onInterrupt;
		this.failureMessage = failureMessage;
		this.unprintableResult = unprintableResult;
	}

	@ExactlyOnceListener(consumer = "${test.consumer:worker}", key = "${test.key:}")
	public Object handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		Ledger.Execution attempt = new Ledger.Execution(task.taskId(), context.deliveryCount(), this.instance,
				context.fencingToken(), context.previousAttempt().orElse(null));
		this.ledger.recordStart(attempt);
		this.ledger.handlerStarted();
		try {
			this.ledger.passGate();
			work();
			if (this.ledger.startedOf(task.taskId()) <= this.failures
					|| (this.alwaysFailing.contains(task.taskId()) && !this.ledger.isFixed(task.taskId()))) {
				throw switch (this.failure) {
					case "illegal-argument" -> new IllegalArgumentException(messageOr("simulated bad task"));
					case "unreadable-message" -> new UnreadableMessageException();
					default -> new IllegalStateException(messageOr("simulated model failure"));
				};
			}
			this.ledger.record(attempt);
			return this.unprintableResult ? new UnprintableResult() : "post for " + task.taskId();
		}
		finally {
			this.ledger.handlerEnded();
		}
	}

	/** A failure whose {@code getMessage()} throws, as one that formats a lazy entity outside its session does. */
	private static final class UnreadableMessageException extends IllegalStateException {

		@Override
		public String getMessage() {
			throw new IllegalStateException("could not initialize proxy - no session");
		}

	}

	/** A result whose {@code toString()} throws, as a lazy entity read outside its session does. */
	private static final class UnprintableResult {

		@Override
		public String toString() {
			throw new IllegalStateException("could not initialize proxy - no session");
		}

	}

	private String messageOr(String defaultMessage) {
		return this.failureMessage.isEmpty() ? defaultMessage : this.failureMessage;
	}

	private void work() throws InterruptedException {
		if (this.onInterrupt.equals("ignore")) {
			workIgnoringInterrupts();
			return;
		}
		try {
			Thread.sleep(this.workDuration.toMillis());
		}
		catch (InterruptedException ex) {
			if (this.onInterrupt.equals("throw")) {
				throw ex;
			}
			Thread.currentThread().interrupt();
			if (this.onInterrupt.equals("restore-and-fail")) {
				throw new IllegalStateException("work interrupted", ex);
			}
		}
	}

	private void workIgnoringInterrupts() {
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
