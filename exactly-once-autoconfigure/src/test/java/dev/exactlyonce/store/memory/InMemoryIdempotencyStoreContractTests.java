package dev.exactlyonce.store.memory;

import java.time.Clock;
import java.time.Duration;

import dev.exactlyonce.store.AbstractIdempotencyStoreContractTests;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * The store contract against {@link InMemoryIdempotencyStore}.
 */
class InMemoryIdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) {
		return new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(), completedTtl));
	}

}
