package dev.exactlyonce.store;

import java.security.SecureRandom;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The claims of one store client whose writes got no answer. Each claim is written with a token
 * chosen before the write; when the store does not answer, the key is read back and a record
 * holding that token is the caller's own claim. When the read-back gets no answer either, the
 * token is remembered, and the claimant's next claim of the key is written with it, so the store
 * recognises the claimant's own claim (see {@link ClaimRules#claim}) instead of reporting it as
 * held elsewhere and, once its lease ran out, abandoned.
 * <p>
 * New tokens are unique without a random draw per claim (a {@link SecureRandom} call per message
 * serialised the workers): each client starts from 128 random bits and counts up, so its own
 * tokens never repeat and two clients' tokens meet with negligible probability.
 */
public final class UnconfirmedClaims {

	/** Remembered tokens at most; beyond, a lost claim is seen as held elsewhere until its lease ends. */
	private static final int MAX_REMEMBERED = 10_000;

	private final Map<Claimant, String> tokens = new ConcurrentHashMap<>();

	private final long tokenHigh;

	private final AtomicLong tokenLow;

	/** A client's unconfirmed claims, none yet. */
	public UnconfirmedClaims() {
		SecureRandom random = new SecureRandom();
		this.tokenHigh = random.nextLong();
		this.tokenLow = new AtomicLong(random.nextLong());
	}

	/**
	 * The token to claim a key with: the one of the claimant's unconfirmed claim of the key, taken
	 * so that only one caller reuses it, else a new one.
	 * @param key the key
	 * @param owner the claimant
	 * @return the token
	 */
	public String token(String key, String owner) {
		String unconfirmed = this.tokens.remove(new Claimant(key, owner));
		return (unconfirmed != null) ? unconfirmed : newToken();
	}

	private String newToken() {
		return new UUID(this.tokenHigh, this.tokenLow.incrementAndGet()).toString();
	}

	/**
	 * Runs a claim written with {@code token}; when the store does not answer, reads the key back:
	 * the claimant's own claim there is acquired, otherwise the token is remembered for the
	 * claimant's next claim and the failure thrown.
	 * @param key the key
	 * @param owner the claimant
	 * @param token the token the claim is written with (from {@link #token})
	 * @param claim the claim
	 * @param readBack reads the stored record, {@code null} when there is none
	 * @return what the claim found
	 */
	public ClaimResult claim(String key, String owner, String token, Supplier<ClaimResult> claim,
			Supplier<IdempotencyRecord> readBack) {
		try {
			return claim.get();
		}
		catch (StoreUnavailableException ex) {
			Claimant claimant = new Claimant(key, owner);
			if (this.tokens.size() < MAX_REMEMBERED) {
				this.tokens.put(claimant, token);
			}
			IdempotencyRecord own = LandedWrites.readBack(ex, readBack, LandedWrites.claimOf(owner, token));
			this.tokens.remove(claimant, token);
			return ClaimResult.Acquired.of(own);
		}
	}

	private record Claimant(String key, String owner) {
	}

}
