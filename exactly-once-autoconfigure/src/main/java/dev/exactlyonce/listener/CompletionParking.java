package dev.exactlyonce.listener;

import java.util.Optional;

import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Where a handler that finished keeps its completion while the idempotency store cannot take it: on
 * NATS, which is often up when the store is not. The next attempt that takes over the claim looks here
 * before it runs anything, and records a completion parked by the very attempt it took over (matched by
 * that attempt's fencing token) instead of running the handler again.
 */
public interface CompletionParking {

	/** No parking: a completion the store could not take is only retried while the process lives. */
	CompletionParking NONE = new CompletionParking() {

		@Override
		public boolean park(String storeKey, Parked parked) {
			return false;
		}

		@Override
		public Optional<Parked> find(String storeKey) {
			return Optional.empty();
		}

		@Override
		public void remove(String storeKey) {
		}

	};

	/**
	 * Keeps a completion for a key, replacing any kept before.
	 * @param storeKey the namespaced idempotency key
	 * @param parked the completion and the token of the claim whose handler produced it
	 * @return {@code true} once kept, {@code false} when parking is disabled
	 * @throws StoreUnavailableException when it could not be kept
	 */
	boolean park(String storeKey, Parked parked);

	/**
	 * The completion kept for a key.
	 * @param storeKey the namespaced idempotency key
	 * @return the completion, or empty when none is kept
	 * @throws StoreUnavailableException when the answer could not be had
	 */
	Optional<Parked> find(String storeKey);

	/**
	 * Forgets the completion kept for a key, once a record holds it; a failure is only logged (an
	 * entry left behind is never matched by another claim and expires).
	 * @param storeKey the namespaced idempotency key
	 */
	void remove(String storeKey);

	/**
	 * A parked completion.
	 * @param token the fencing token of the claim whose handler finished
	 * @param completion the completion that claim could not record
	 */
	record Parked(String token, Completion completion) {
	}

}
