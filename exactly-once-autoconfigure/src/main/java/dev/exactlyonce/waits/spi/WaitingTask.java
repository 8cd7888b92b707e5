package dev.exactlyonce.waits.spi;

import java.util.Optional;

import io.nats.client.Message;

import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.StepRecord;

/**
 * What a durable wait needs of the claimed delivery it runs in: where the task is, its journal
 * (fenced by the delivery's claim) and the write of its {@code WAITING} record.
 */
public interface WaitingTask {

	/**
	 * The task's namespaced key in the idempotency store.
	 * @return the store key
	 */
	String storeKey();

	/**
	 * The task's key, without namespace.
	 * @return the key
	 */
	String key();

	/**
	 * The consumer that delivered it.
	 * @return the consumer's name
	 */
	String consumer();

	/**
	 * The stream it was read from.
	 * @return the stream's name
	 */
	String stream();

	/**
	 * The task's run ({@link dev.exactlyonce.store.IdempotencyRecord#run()}).
	 * @return the run, from 1
	 */
	int run();

	/**
	 * The fencing token of the claim this attempt holds.
	 * @return the token
	 */
	String token();

	/**
	 * The attempt of the key this delivery runs.
	 * @return the attempt, from 1
	 */
	int attempt();

	/**
	 * The delivered message, published again (its subject, headers and data) when the task resumes.
	 * @return the message
	 */
	Message message();

	/**
	 * Where the message is, for errors and logs: never the payload.
	 * @return e.g. {@code stream 'TASKS', consumer 'worker', sequence 7, delivery 1}
	 */
	String describe();

	/**
	 * Checks that a wait's name is new in this run (shared with steps) and returns its entry of the
	 * earlier attempts.
	 * @param name the wait's name
	 * @return the earlier entry, or empty
	 * @throws dev.exactlyonce.listener.StepRejectedException when the name ran before in this run
	 */
	Optional<StepRecord> begin(String name);

	/**
	 * Journals a wait's entry at once, fenced by the claim, retried while the store is unavailable.
	 * @param entry the entry
	 */
	void journal(StepRecord entry);

	/**
	 * Writes the task's {@code WAITING} record, fenced by the claim.
	 * @param waiting the record's content
	 * @throws dev.exactlyonce.store.ClaimLostException when the claim was taken over
	 */
	void recordWaiting(Completion waiting);

}
