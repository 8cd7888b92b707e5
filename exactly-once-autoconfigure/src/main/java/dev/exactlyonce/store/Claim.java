package dev.exactlyonce.store;

import java.time.Instant;

/**
 * A held claim on an idempotency key: a lease fenced by a token that changes on every acquisition.
 *
 * @param key the namespaced idempotency key
 * @param owner who holds it
 * @param token the fencing token; completion and renewal succeed only with the current one
 * @param attempt the number of this attempt (1 for the first)
 * @param startedAt when this attempt acquired the claim
 * @param leaseUntil when the lease ends unless renewed
 */
public record Claim(String key, String owner, String token, int attempt, Instant startedAt, Instant leaseUntil) {

	/**
	 * Returns this claim with a new lease end.
	 * @param newLeaseUntil the new end of the lease
	 * @return the renewed claim
	 */
	public Claim withLeaseUntil(Instant newLeaseUntil) {
		return new Claim(this.key, this.owner, this.token, this.attempt, this.startedAt, newLeaseUntil);
	}

}
