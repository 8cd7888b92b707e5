package dev.exactlyonce.store.firestore;

import java.time.Clock;
import java.time.Duration;

import dev.exactlyonce.store.AbstractSkewedClockStoreTests;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;

/**
 * Instances with disagreeing clocks on one {@link FirestoreIdempotencyStore} collection of Google's
 * Firestore emulator.
 */
class FirestoreSkewedClockIntegrationTests extends AbstractSkewedClockStoreTests {

	private static final Duration TTL = Duration.ofMinutes(10);

	private RunningEmulator emulator;

	@Override
	protected void startInfrastructure() {
		this.emulator = RunningEmulator.start();
	}

	@Override
	protected void stopInfrastructure() throws Exception {
		this.emulator.close();
	}

	@Override
	protected IdempotencyStore createStore(Clock clock) {
		return new FirestoreIdempotencyStore(this.emulator.client(), "skew", new ClaimRules(clock, TTL), RunningEmulator.CALL_TIMEOUT);
	}

}
