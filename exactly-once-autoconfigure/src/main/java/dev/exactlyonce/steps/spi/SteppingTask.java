package dev.exactlyonce.steps.spi;

import java.util.List;

import dev.exactlyonce.listener.StepOutcome;
import dev.exactlyonce.store.StepRecord;

/**
 * What durable steps need of the claimed delivery they run in: where it is, its claim, its
 * listener's policies, the writes of its journal (fenced by the claim) and its observers.
 */
public interface SteppingTask {

	/**
	 * Where the message is, for errors and logs: never the payload.
	 * @return e.g. {@code stream 'TASKS', consumer 'worker', sequence 7, delivery 1}
	 */
	String describe();

	/**
	 * The listener, for errors.
	 * @return its bean and method
	 */
	String listener();

	/**
	 * The consumer that delivered the task.
	 * @return the consumer's name
	 */
	String consumer();

	/**
	 * The task's key, without namespace.
	 * @return the key
	 */
	String key();

	/**
	 * The task's namespaced key in the idempotency store.
	 * @return the store key
	 */
	String storeKey();

	/**
	 * The attempt of the key this delivery runs.
	 * @return the attempt, from 1
	 */
	int attempt();

	/**
	 * The fencing token of the claim this attempt holds.
	 * @return the token
	 */
	String token();

	/**
	 * The owner of the attempt before this one.
	 * @return its owner, or {@code unknown}
	 */
	String previousOwner();

	/**
	 * Whether the listener dead-letters a task whose earlier attempt died mid-step (on-abandoned
	 * dead-letter) rather than running the step again.
	 * @return {@code true} to dead-letter
	 */
	boolean deadLettersAbandoned();

	/**
	 * Whether the steps' {@code DONE} entries are journaled inside the listener's transaction.
	 * @return {@code true} for a transactional listener that journals steps with its transaction
	 */
	boolean stepsInTransaction();

	/**
	 * Journals entries at once, in order, in one store write where the store can, fenced by the
	 * claim, retried while the store is unavailable.
	 * @param entries the entries, at least one
	 * @throws dev.exactlyonce.store.ClaimLostException when the claim was taken over
	 * @throws dev.exactlyonce.store.StoreUnavailableException when the store did not answer in time
	 * @throws dev.exactlyonce.listener.StepRejectedException when the record is too large for the store
	 */
	void journal(List<StepRecord> entries);

	/**
	 * Makes one attempt to journal entries, as {@link #journal} does, never retried and never
	 * throwing: for the timer's thread.
	 * @param entries the entries, at least one
	 * @return whether they need no other attempt: journaled, or the claim was lost (they never can
	 * be); {@code false} when the write failed or the listener has closed
	 */
	boolean tryJournal(List<StepRecord> entries);

	/**
	 * Journals a {@code DONE} entry once, inside the listener's transaction: a failure is the
	 * transaction's.
	 * @param step the entry
	 */
	void journalInTransaction(StepRecord step);

	/**
	 * Tells the observers that a step's action ran (before its result is journaled).
	 * @param step the step's name
	 * @throws RuntimeException when an observer halts the delivery (see {@link #halts})
	 */
	void performed(String step);

	/**
	 * Tells the observers what a step did.
	 * @param step the step's name
	 * @param outcome what it did
	 */
	void stepped(String step, StepOutcome outcome);

	/**
	 * Whether a failure is an observer halting the delivery, which leaves a step as a crash would
	 * (not journaled as failed).
	 * @param failure what a step's action or observer threw
	 * @return {@code true} when it halts the delivery
	 */
	boolean halts(RuntimeException failure);

}
