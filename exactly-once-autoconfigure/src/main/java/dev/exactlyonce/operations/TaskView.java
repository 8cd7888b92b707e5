package dev.exactlyonce.operations;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;

/**
 * One task as the store holds it, for operators.
 *
 * @param consumer the consumer whose listener runs it
 * @param key its idempotency key, without the listener's namespace
 * @param status its status
 * @param owner who made the last attempt ({@code <instance-id>#<stream sequence>})
 * @param attempts the attempts counted against {@code max-deliver}
 * @param startedAt when the last attempt started
 * @param leaseUntil when the last attempt's lease ends (ended)
 * @param leaseLeftSeconds seconds left on a live claim's lease, 0 otherwise
 * @param streamSequence the stream sequence of the message that completed it (or was dead-lettered), 0 otherwise
 * @param completedAt when it was completed or dead-lettered, or {@code null}
 * @param resultSummary the result summary, the failure of a released attempt or the dead-letter reason
 * @param steps the step journal, in the order the steps first started
 * @param audit the operators' actions on it, oldest first
 * @param previousAttempt the attempt the last one took over (failed or abandoned), or {@code null}
 * @param parent the task that started this one as a child, or {@code null} (none, or not looked up:
 * only a task read by key has it)
 * @param children the child tasks it started, in the order it started them (their statuses only in a
 * task read by key, and for its first 100 children)
 */
public record TaskView(String consumer, String key, TaskStatus status, String owner, int attempts, Instant startedAt,
		Instant leaseUntil, long leaseLeftSeconds, long streamSequence, Instant completedAt, String resultSummary,
		List<StepRecord> steps, List<OperatorAction> audit, EarlierAttempt previousAttempt, ParentLink parent,
		List<ChildLink> children) {

	/**
	 * An attempt before the last, as the record keeps it.
	 * @param owner who made it ({@code <instance-id>#<stream sequence>})
	 * @param startedAt when it started
	 * @param state {@code FAILED} (released after an exception) or {@code IN_PROGRESS} (abandoned: its
	 * lease ran out mid-work)
	 * @param failure the failure of a released attempt, or {@code null}
	 * @param unfinishedStep the step it left started, or {@code null}
	 */
	public record EarlierAttempt(String owner, Instant startedAt, RecordState state, String failure,
			String unfinishedStep) {

		static EarlierAttempt of(PreviousAttempt previous) {
			return (previous != null) ? new EarlierAttempt(previous.owner(), previous.startedAt(), previous.state(),
					previous.failure(), previous.unfinishedStep()) : null;
		}

	}

	/**
	 * The view of a record.
	 * @param consumer the consumer
	 * @param key the key without namespace
	 * @param record the record
	 * @param now the current time
	 * @param shownStep what operators see of each journal entry (e.g. a signal's payload hidden)
	 * @return the view
	 */
	public static TaskView of(String consumer, String key, IdempotencyRecord record, Instant now,
			UnaryOperator<StepRecord> shownStep) {
		TaskStatus status = TaskStatus.of(record, now);
		long leaseLeft = (status == TaskStatus.IN_PROGRESS) ? Duration.between(now, record.leaseUntil()).toSeconds() : 0;
		return new TaskView(consumer, key, status, record.owner(), record.attempts(), record.startedAt(),
				record.leaseUntil(), leaseLeft, record.streamSequence(), record.completedAt(), record.resultSummary(),
				record.journal().steps().stream().map(shownStep).toList(), record.audit(),
				EarlierAttempt.of(record.previousAttempt()), null,
				ChildSteps.of(record.journal().steps()));
	}

	/**
	 * This task with its relatives looked up.
	 * @param parent the task that started it, or {@code null}
	 * @param children its children, with their statuses
	 * @return the task with them
	 */
	TaskView withRelatives(ParentLink parent, List<ChildLink> children) {
		return new TaskView(this.consumer, this.key, this.status, this.owner, this.attempts, this.startedAt,
				this.leaseUntil, this.leaseLeftSeconds, this.streamSequence, this.completedAt, this.resultSummary,
				this.steps, this.audit, this.previousAttempt, parent, children);
	}

}
