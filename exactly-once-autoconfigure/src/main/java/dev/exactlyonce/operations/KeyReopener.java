package dev.exactlyonce.operations;

import java.time.Clock;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordChangedException;

/**
 * Records an operator's action on a task's record (see
 * {@link IdempotencyStore#recordOperatorAction}) and says which number it got. Idempotent per dead
 * letter: an action already recorded for the same dead letter (by this operator's earlier call
 * that failed later, or by another operator or instance at the same moment) is answered with its
 * number instead of being recorded twice, so a republish under {@code <key>/replay-<number>} is the
 * same message however often it is asked for.
 */
public class KeyReopener {

	private static final Log logger = LogFactory.getLog(KeyReopener.class);

	private static final int ROUNDS = 5;

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
	 * @return the action's number; 1 when the store holds no record of the key (expired, or never
	 * claimed) or a discarded dead letter's key is no longer dead-lettered (a copy settled it): the
	 * record is not changed then, and the audit is this class's INFO log line only
	 * @throws OperationRefusedException when the task's state does not allow the action
	 */
	public int reopen(String consumer, String key, OperatorAction.Kind kind, long deadLetterSequence, String operator,
			String reason) {
		String storeKey = this.consumers.storeKey(consumer, key);
		for (int round = 0; round < ROUNDS; round++) {
			Optional<IdempotencyRecord> found = this.store.find(storeKey);
			if (found.isEmpty()) {
				if (kind == OperatorAction.Kind.RESUBMIT) {
					throw new OperationRefusedException("The store holds no record of key '" + key + "' of consumer '"
							+ consumer + "' (never claimed, or older than exactlyonce.store.completed-ttl): publish "
							+ "it as a new task instead of resubmitting it");
				}
				log(kind, 1, consumer, key, deadLetterSequence, operator, reason, " (no record of the key is kept)");
				return 1;
			}
			IdempotencyRecord record = found.get();
			Optional<OperatorAction> done = (deadLetterSequence > 0)
					? record.actionOn(kind, deadLetterSequence) : Optional.empty();
			if (done.isPresent()) {
				return done.get().number();
			}
			if (kind == OperatorAction.Kind.DISCARD && !kind.appliesTo(record.state())) {
				log(kind, 1, consumer, key, deadLetterSequence, operator, reason,
						" (the key is " + record.state() + " now: its record is left as it is)");
				return 1;
			}
			if (!kind.appliesTo(record.state())) {
				throw new OperationRefusedException("Task '" + key + "' of consumer '" + consumer + "' is "
						+ TaskStatus.of(record, this.clock.instant()) + "; " + kind + " applies to "
						+ allowed(kind) + " tasks only" + advice(kind));
			}
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
		throw new OperationRefusedException("Task '" + key + "' of consumer '" + consumer + "' kept changing while "
				+ kind + " was recorded: try again");
	}

	private static String allowed(OperatorAction.Kind kind) {
		return (kind == OperatorAction.Kind.RESUBMIT) ? "COMPLETED or FAILED" : "DEAD_LETTERED";
	}

	private static String advice(OperatorAction.Kind kind) {
		return (kind == OperatorAction.Kind.RESUBMIT) ? ": wait for a running attempt to end (replay a dead-lettered one)"
				: ": another copy of the task was run since it was parked (or the key was replayed or resubmitted), so "
						+ "a replay could run it twice; read the task, and discard this dead letter once it is settled";
	}

	private static void log(OperatorAction.Kind kind, int number, String consumer, String key, long deadLetterSequence,
			String operator, String reason, String note) {
		logger.info(kind + " " + number + " of task '" + key + "' of consumer '" + consumer + "'"
				+ ((deadLetterSequence > 0) ? " (dead letter " + deadLetterSequence + ")" : "") + " by " + operator
				+ ": " + reason + note);
	}

}
