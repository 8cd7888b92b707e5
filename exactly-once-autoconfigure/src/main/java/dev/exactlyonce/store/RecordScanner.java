package dev.exactlyonce.store;

import java.util.function.Consumer;

/**
 * Optional capability of an {@link IdempotencyStore}: reading every record it holds. Used by the
 * actuator endpoint (in-flight claims) and the reconciliation audit, never on the message path.
 * Stores that cannot list their records cheaply need not implement it; those features then say
 * so instead of guessing.
 */
public interface RecordScanner {

	/**
	 * Calls {@code action} with every record that has not expired, in no particular order, as the
	 * records are read (NATS KV as its watch delivers them, Redis and Firestore page by page, JDBC
	 * row by row from its driver). Reads the whole store, so it is as slow as the store is large. A
	 * record rewritten while the scan runs may be handed twice (Redis {@code SCAN} may repeat a key;
	 * NATS KV hands its later value too), so callers that count, count by key or sequence. An exception
	 * of the action ends the scan and leaves it as it is; no record is handed after this returned.
	 * Instants are given as {@link IdempotencyStore#find} gives them. A store that keeps the older part of a
	 * long step journal outside the record (NATS KV, Firestore) hands the record with the part it keeps
	 * inside, the latest steps; {@link IdempotencyStore#find} reads the whole journal.
	 * @param action what to do with each record
	 * @throws StoreUnavailableException when the store cannot be read completely
	 */
	void scan(Consumer<IdempotencyRecord> action);

}
