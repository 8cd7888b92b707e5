package dev.exactlyonce.store.memory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimDecision;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;

/**
 * An {@link IdempotencyStore} in this JVM's memory. Records die with the process, so it protects
 * nothing across restarts: for tests and local runs only.
 */
public class InMemoryIdempotencyStore implements IdempotencyStore, RecordScanner {

	private final ConcurrentMap<String, IdempotencyRecord> records = new ConcurrentHashMap<>();

	private final ClaimRules rules;

	/**
	 * Creates the store.
	 * @param rules the claim rules (clock and record TTL)
	 */
	public InMemoryIdempotencyStore(ClaimRules rules) {
		this.rules = rules;
	}

	@Override
	public ClaimResult tryClaim(String key, String owner, Duration lease) {
		ClaimResult[] result = new ClaimResult[1];
		this.records.compute(key, (k, current) -> {
			ClaimDecision decision = this.rules.claim(current, key, owner, lease);
			result[0] = decision.result();
			return decision.requiresWrite() ? decision.toWrite() : current;
		});
		return result[0];
	}

	@Override
	public Claim renew(Claim claim, Duration lease) {
		IdempotencyRecord renewed = update(claim.key(), (current) -> this.rules.renew(current, claim, lease));
		return claim.withLeaseUntil(renewed.leaseUntil());
	}

	@Override
	public IdempotencyRecord complete(Claim claim, Completion completion) {
		return update(claim.key(), (current) -> this.rules.complete(current, claim, completion));
	}

	@Override
	public void release(Claim claim, String failure) {
		update(claim.key(), (current) -> this.rules.release(current, claim, failure));
	}

	@Override
	public Optional<IdempotencyRecord> find(String key) {
		IdempotencyRecord record = this.records.get(key);
		return this.rules.isExpired(record, this.rules.now()) ? Optional.empty() : Optional.of(record);
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

	private IdempotencyRecord update(String key, UnaryOperator<IdempotencyRecord> transition) {
		return this.records.compute(key, (k, current) -> transition.apply(current));
	}

}
