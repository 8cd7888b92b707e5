package dev.exactlyonce.store.memory;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.CompareAndSetIdempotencyStore;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;

/**
 * An {@link IdempotencyStore} in this JVM's memory. Records die with the process, so it protects
 * nothing across restarts: for tests and local runs only.
 */
public class InMemoryIdempotencyStore extends CompareAndSetIdempotencyStore implements RecordScanner {

	private final ConcurrentMap<String, IdempotencyRecord> records = new ConcurrentHashMap<>();

	/**
	 * Creates the store.
	 * @param rules the claim rules (clock and record TTL)
	 */
	public InMemoryIdempotencyStore(ClaimRules rules) {
		super(rules);
	}

	@Override
	protected ClaimResult claim(String key, String owner, Duration lease, String token) {
		ClaimResult[] result = new ClaimResult[1];
		this.records.compute(key, (k, current) -> {
			ClaimDecision decision = this.rules.claim(current, key, owner, lease, token);
			result[0] = decision.result();
			return decision.requiresWrite() ? decision.toWrite() : current;
		});
		return result[0];
	}

	@Override
	public String name() {
		return "memory";
	}

	@Override
	public void scan(Consumer<IdempotencyRecord> action) {
		this.records.values()
			.stream()
			.filter((record) -> !this.rules.isExpired(record, this.rules.now()))
			.forEach(action);
	}

	@Override
	protected IdempotencyRecord transition(String key, UnaryOperator<IdempotencyRecord> change,
			boolean keepsJournal) {
		return this.records.compute(key, (k, current) -> change.apply(current));
	}

	@Override
	protected IdempotencyRecord readRecord(String key) {
		return this.records.get(key);
	}

}
