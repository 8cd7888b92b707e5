package dev.exactlyonce.store;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Durable store of idempotency claims and completion records.
 * <p>
 * A claim is a lease: whoever holds it may run the handler for its key; a completed key is never
 * run again. Every operation that changes a record is atomic and fenced by the claim's token, so
 * a worker whose lease was taken over (a zombie) can neither renew nor complete it. Operations
 * throw {@link StoreUnavailableException} when the store cannot answer; they never report a key
 * as "not completed" because of an outage.
 */
public interface IdempotencyStore {

	/**
	 * The failure of an attempt released by a routine shutdown (the handler was interrupted, or
	 * still running when the shutdown timeout ran out). Such a release gives its attempt back: the
	 * record keeps this text as its failure and does not count the attempt in
	 * {@link IdempotencyRecord#attempts()}, so rolling restarts never use up a key's attempts.
	 */
	String RELEASED_BY_SHUTDOWN = "interrupted by shutdown";

	/**
	 * How many duplicate copies {@link #recordDuplicate} keeps per record: the latest 32. A key
	 * normally has a few copies (publisher retries, double publishes); 32 sequences take at most
	 * about 650 bytes, so a flood of copies can never push a record past a store's value limit
	 * (NATS {@code max_payload}, a Firestore document's 1 MiB). Older copies of a key published
	 * more often than that are reported by the reconciliation, which is worth a look anyway.
	 */
	int DUPLICATE_SEQUENCES_KEPT = 32;

	/**
	 * Claims {@code key} for {@code owner} until {@code lease} from now. A fresh key, a released
	 * (failed) attempt and an abandoned claim (lease expired, never completed) are acquired
	 * atomically; exactly one of several racing callers wins.
	 * @param key the namespaced idempotency key
	 * @param owner who claims it (instance and thread)
	 * @param lease how long the claim lasts without renewal
	 * @return what the store holds for the key
	 */
	ClaimResult tryClaim(String key, String owner, Duration lease);

	/**
	 * Extends the lease of a held claim.
	 * @param claim the claim held
	 * @param lease the new lease, from now
	 * @return the renewed claim
	 * @throws ClaimLostException if someone else holds the key now or it is completed
	 */
	Claim renew(Claim claim, Duration lease);

	/**
	 * Writes the completion record, as a compare-and-set on the claim's fencing token.
	 * @param claim the claim held
	 * @param completion what the attempt produced
	 * @return the stored record
	 * @throws ClaimLostException if the claim is no longer held by its token
	 */
	IdempotencyRecord complete(Claim claim, Completion completion);

	/**
	 * Gives the claim up after a failed attempt, so that a later delivery may claim it at once.
	 * @param claim the claim held
	 * @param failure a short description of why the attempt failed (no payloads);
	 * {@link #RELEASED_BY_SHUTDOWN} gives the attempt back
	 * @throws ClaimLostException if the claim is no longer held by its token
	 */
	void release(Claim claim, String failure);

	/**
	 * Journals a step of a held claim's task: replaces the journal's entry of the step's name (or
	 * appends it), as a compare-and-set on the claim's fencing token, so a worker that lost its
	 * claim cannot journal. The journal is kept when the key is completed or claimed again. Written at
	 * once, outside any transaction of the caller's.
	 * @param claim the claim held
	 * @param step the step's entry
	 * @throws ClaimLostException if the claim is no longer held by its token
	 * @throws RecordTooLargeException if the record with this entry would exceed what the store can
	 * keep under one key
	 */
	void recordStep(Claim claim, StepRecord step);

	/**
	 * Journals several entries of a held claim's task in one write where the store can (a step's
	 * {@code DONE} entry with the next step's {@code STARTED}): as {@link #recordStep} of each in
	 * order would. The default writes them one by one, so a failure may leave the first written.
	 * @param claim the claim held
	 * @param steps the entries, in order, at least one
	 * @throws ClaimLostException if the claim is no longer held by its token
	 * @throws RecordTooLargeException if the record with these entries would exceed what the store
	 * can keep under one key
	 */
	default void recordSteps(Claim claim, List<StepRecord> steps) {
		for (StepRecord step : steps) {
			recordStep(claim, step);
		}
	}

	/**
	 * Journals a step's entry as part of the caller's transaction, for a store that writes completion
	 * records in its callers' transactions (JDBC): the entry then commits or rolls back with the
	 * writes it stands for. Other stores journal it as {@link #recordStep} does.
	 * @param claim the claim held
	 * @param step the step's entry
	 * @throws ClaimLostException if the claim is no longer held by its token
	 * @throws RecordTooLargeException if the record with this entry would exceed what the store can
	 * keep under one key
	 */
	default void recordStepWithTransaction(Claim claim, StepRecord step) {
		recordStep(claim, step);
	}

	/**
	 * Notes on a key's final record (completed or dead-lettered) that the copy at
	 * {@code streamSequence} of the listener's stream is about to be settled as its duplicate
	 * (acked, terminated or deleted without running), so that reconciliation can account for the
	 * copy once a WorkQueue stream removed it. Appends the sequence to
	 * {@link IdempotencyRecord#duplicateSequences()}, keeping the last
	 * {@link #DUPLICATE_SEQUENCES_KEPT}; a sequence already noted changes nothing. An atomic
	 * read-modify-write of the record (a concurrent note or transition is never lost) that leaves
	 * everything else as it is, expiry included. Does nothing when the key has no final record
	 * (never claimed, in progress, released, expired).
	 * @param key the namespaced idempotency key
	 * @param streamSequence the stream sequence of the duplicate copy
	 * @throws StoreUnavailableException when the store cannot answer
	 */
	void recordDuplicate(String key, long streamSequence);

	/**
	 * Records an operator's action on a key that no attempt holds, as a compare-and-set on the
	 * token of the record the operator read: the action is appended to the record's audit
	 * ({@link IdempotencyRecord#audit()}), and a new token is written. {@link OperatorAction.Kind#REPLAY}
	 * and {@link OperatorAction.Kind#RESUBMIT} reopen the key: state {@link RecordState#FAILED}, no
	 * attempts counted, so the next delivery of the key runs it with a fresh budget (a replay keeps
	 * the step journal, so steps done are not paid for again; a resubmit empties it) and add the
	 * sequence of the copy that had settled the key to {@link IdempotencyRecord#duplicateSequences()},
	 * which later attempts keep, so reconciliation still accounts for every copy.
	 * {@link OperatorAction.Kind#DISCARD} keeps the state. The record lives {@code completed-ttl}
	 * from now. Never called on the message path.
	 * @param key the namespaced idempotency key
	 * @param expectedToken the token of the record as the operator read it
	 * @param action the action, with its number ({@link IdempotencyRecord#nextActionNumber})
	 * @return the record written
	 * @throws RecordChangedException when the record is gone, holds another token, or its state
	 * does not allow the action ({@link OperatorAction.Kind#appliesTo})
	 */
	IdempotencyRecord recordOperatorAction(String key, String expectedToken, OperatorAction action);

	/**
	 * Reads the record of a key. Its instants are for comparing with this instance's clock: a store
	 * that decides leases on its server's clock moves them onto this instance's (NATS KV, Firestore;
	 * Redis and JDBC give the server's as they are).
	 * @param key the namespaced idempotency key
	 * @return the record, or empty when the key was never claimed or its record expired
	 */
	Optional<IdempotencyRecord> find(String key);

	/**
	 * Reads the record of a key without its step journal: {@link #find} with
	 * {@link IdempotencyRecord#journal()} empty, for callers that need its state, run, token or
	 * audit only (a child reporting to its parent, a resumption). A store that keeps part of a
	 * journal apart (sealed parts, step rows, step fields) does not read it, so this costs the same
	 * however long the journal is.
	 * @param key the namespaced idempotency key
	 * @return the record with an empty journal, or empty when the key was never claimed or its
	 * record expired
	 */
	default Optional<IdempotencyRecord> findWithoutJournal(String key) {
		return find(key).map((record) -> record.withJournal(StepJournal.EMPTY));
	}

	/**
	 * A short name of this store for health details, metrics tags and logs.
	 * @return e.g. {@code nats-kv}
	 */
	String name();

}
