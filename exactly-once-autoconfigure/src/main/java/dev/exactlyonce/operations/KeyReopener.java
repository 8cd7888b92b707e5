package dev.exactlyonce.operations;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordChangedException;
import dev.exactlyonce.store.RecordState;

/**
 * Records an operator's action on a task's record (see
 * {@link IdempotencyStore#recordOperatorAction}) and says which number it got. Idempotent per dead
 * letter: an action already recorded for the same dead letter (by this operator's earlier call
 * that failed later, or by another operator or instance at the same moment) is answered with its
 * number instead of being recorded twice. A replay and a discard of one dead letter are decided by
 * the compare-and-set that recorded the first of them: the other is refused.
 */
public class KeyReopener {

	private static final Log logger = LogFactory.getLog(KeyReopener.class);

	private static final int ROUNDS = 5;

	private static final Duration RECREATE_LEASE = Duration.ofSeconds(30);

	private final IdempotencyStore store;

	private final OperatedConsumers consumers;

	private final Clock clock;

	/**
	 * Creates the reopener.
	 * @param store the idempotency store
	 * @param consumers the declared consumers
	 * @param clock the clock of the audit entries
	 */
	public KeyReopener(IdempotencyStore store, OperatedConsumers consumers, Clock clock) {
		this.store = store;
		this.consumers = consumers;
		this.clock = clock;
	}

	/**
	 * Records an action on a task.
	 * @param consumer the consumer whose listener runs the task
	 * @param key the task's key, without namespace
	 * @param kind the action
	 * @param deadLetterSequence the dead letter acted on, 0 for a resubmit
	 * @param operator who acts
	 * @param reason why
	 * @return the action's number; 1 when a discarded dead letter's key was completed by another copy:
	 * the record is not changed then, and the audit is this class's INFO log line only. A dead letter
	 * whose key's record expired (or was never written) gets a dead-lettered record first, so the
	 * action is decided and audited like any other
	 * A resubmit asked again by the operator whose resubmit of the key has not run yet gets that
	 * resubmit's number (so its copy is published again under the same message id); by anyone else
	 * it is refused
	 * @throws OperationRefusedException when the task's state does not allow the action, the
	 * dead letter was replayed (for a discard) or discarded (for a replay) already, or the reason is
	 * too long ({@link OperatorReasons})
	 */
	public int reopen(String consumer, String key, OperatorAction.Kind kind, long deadLetterSequence, String operator,
			String reason) {
		OperatorReasons.check(reason);
		String storeKey = this.consumers.storeKey(consumer, key);
		for (int round = 0; round < ROUNDS; round++) {
			Optional<IdempotencyRecord> found = find(storeKey, kind, consumer, key);
			if (found.isEmpty()) {
				if (kind == OperatorAction.Kind.RESUBMIT) {
					throw OperationRefusedException.notFound("The store holds no record of key '" + key + "' of consumer '"
							+ consumer + "' (never claimed, or older than exactlyonce.store.completed-ttl): publish "
							+ "it as a new task instead of resubmitting it");
				}
				recreateDeadLettered(storeKey, consumer, deadLetterSequence, operator);
				continue;
			}
			IdempotencyRecord record = found.get();
			Optional<OperatorAction> done = (deadLetterSequence > 0)
					? record.actionOn(kind, deadLetterSequence) : Optional.empty();
			if (done.isPresent()) {
				return done.get().number();
			}
			refuseWhenTheOtherActionWon(record, kind, deadLetterSequence, consumer, key);
			if (kind == OperatorAction.Kind.DISCARD && record.state() == RecordState.COMPLETED) {
				log(kind, 1, consumer, key, deadLetterSequence, operator, reason,
						" (the key was completed by another copy: its record is left as it is)");
				return 1;
			}
			Optional<OperatorAction> pending = record.pendingReopen()
				.filter((action) -> kind == OperatorAction.Kind.RESUBMIT && action.kind() == kind
						&& action.operator().equals(operator));
			if (pending.isPresent()) {
				// the same operator asks again before its copy ran (its publish may have failed): the same copy
				return pending.get().number();
			}
			refuseWhenNotAllowed(record, kind, consumer, key);
			OperatorAction action = new OperatorAction(kind, record.nextActionNumber(kind), operator, reason,
					this.clock.instant(), deadLetterSequence);
			try {
				this.store.recordOperatorAction(storeKey, record.token(), action);
				log(kind, action.number(), consumer, key, deadLetterSequence, operator, reason, "");
				return action.number();
			}
			catch (RecordChangedException ex) {
				// someone acted (or an attempt claimed it) since the read: decide again on what it holds now
			}
		}
		throw OperationRefusedException.conflict("Task '" + key + "' of consumer '" + consumer + "' kept changing while "
				+ kind + " was recorded: try again");
	}

	/**
	 * Writes a dead-lettered record for a dead letter whose key's record expired, so that a replay and
	 * a discard of it are decided by a compare-and-set like any other (without a record both would be
	 * answered as done while the task runs). The record is written through a claim of the key, owned
	 * by {@code operator:<name>}; a key claimed by someone else meanwhile is read again.
	 */
	private void recreateDeadLettered(String storeKey, String consumer, long deadLetterSequence, String operator) {
		ClaimResult claimed = this.store.tryClaim(storeKey, "operator:" + operator, RECREATE_LEASE);
		if (claimed instanceof ClaimResult.Acquired acquired) {
			try {
				this.store.complete(acquired.claim(), Completion.deadLettered(consumer, 0, "record recreated for an "
						+ "operator's action on dead letter " + deadLetterSequence + ": the key's record had expired"));
			}
			catch (ClaimLostException ex) {
				// taken over meanwhile: read again
			}
		}
	}

	/**
	 * A replay and a discard of one dead letter are decided by the compare-and-set that recorded the
	 * first of them: the other is refused, saying who did what when, so both operators are told the
	 * truth (the task runs, or it never does).
	 */
	private void refuseWhenTheOtherActionWon(IdempotencyRecord record, OperatorAction.Kind kind,
			long deadLetterSequence, String consumer, String key) {
		if (deadLetterSequence <= 0 || kind == OperatorAction.Kind.RESUBMIT) {
			return;
		}
		OperatorAction.Kind other = (kind == OperatorAction.Kind.REPLAY) ? OperatorAction.Kind.DISCARD
				: OperatorAction.Kind.REPLAY;
		record.actionOn(other, deadLetterSequence).ifPresent((won) -> {
			throw OperationRefusedException.conflict("Dead letter " + deadLetterSequence + " of task '" + key
					+ "' of consumer '" + consumer + "' was " + ((other == OperatorAction.Kind.REPLAY) ? "replayed"
							: "discarded")
					+ " by " + won.operator() + " at " + won.at() + " (" + other + " " + won.number() + "): not "
					+ kind.name().toLowerCase(Locale.ROOT) + "ed; the task is " + RecordFacts.of(record, this.clock.instant()));
		});
	}

	/**
	 * Refuses an action the record's state does not allow, and a resubmit while an earlier replay or
	 * resubmit of the key has not run yet (its copy would be acked as this one's duplicate: the task
	 * would run once, not once per resubmit), saying the record's state, owner and last outcome and
	 * what runs the task next. Decided on the record read: the compare-and-set on its token that
	 * records the action makes it hold at the write.
	 */
	private void refuseWhenNotAllowed(IdempotencyRecord record, OperatorAction.Kind kind, String consumer, String key) {
		Instant now = this.clock.instant();
		String task = "Task '" + key + "' of consumer '" + consumer + "' is " + RecordFacts.of(record, now);
		if (kind == OperatorAction.Kind.RESUBMIT && record.pendingReopen().isPresent()) {
			throw OperationRefusedException.conflict(task + ": " + RecordFacts.whatRunsIt(record, now) + ". Another "
					+ "resubmit now would be acked as that copy's duplicate, not run: wait until the task is COMPLETED "
					+ "or FAILED again, then resubmit it");
		}
		if (kind.appliesTo(record.state())) {
			return;
		}
		String advice = switch (kind) {
			case RESUBMIT -> "RESUBMIT applies to COMPLETED or FAILED tasks only: wait for a running attempt to end "
					+ "(replay a dead-lettered one)";
			case DISCARD -> "it runs again: " + RecordFacts.whatRunsIt(record, now) + ", so discarding its dead letter "
					+ "would not keep it from running; the dead letter is kept: discard it once the task is "
					+ "COMPLETED or DEAD_LETTERED";
			case REPLAY -> (record.state() == RecordState.COMPLETED)
					? "another copy of the task completed it since it was parked, so a replay would run it twice: "
							+ "discard this dead letter"
					: "it runs again: " + RecordFacts.whatRunsIt(record, now) + ", so a replay could run it twice; "
							+ "replay or discard this dead letter once the task is DEAD_LETTERED or COMPLETED";
			case RESUME -> "only a signal or the deadline of its wait resumes a task, and only a WAITING one";
		};
		throw OperationRefusedException.conflict(task + "; " + kind + " refused: " + advice);
	}

	private static void log(OperatorAction.Kind kind, int number, String consumer, String key, long deadLetterSequence,
			String operator, String reason, String note) {
		logger.info(kind + " " + number + " of task '" + key + "' of consumer '" + consumer + "'"
				+ ((deadLetterSequence > 0) ? " (dead letter " + deadLetterSequence + ")" : "") + " by " + operator
				+ ": " + reason + note);
	}

	/**
	 * The record of a key, for an action on it. A record whose step journal lost a sealed part (it
	 * expired before the record) can still be discarded or resubmitted, never replayed: a replay
	 * resumes the journal.
	 */
	private Optional<IdempotencyRecord> find(String storeKey, OperatorAction.Kind kind, String consumer, String key) {
		try {
			return this.store.find(storeKey);
		}
		catch (JournalPartMissingException ex) {
			if (kind == OperatorAction.Kind.REPLAY) {
				throw OperationRefusedException.conflict("Task '" + key + "' of consumer '" + consumer + "' cannot be "
						+ "replayed, which would resume its step journal: " + ex.getMessage());
			}
			return Optional.ofNullable(ex.record());
		}
	}

}
