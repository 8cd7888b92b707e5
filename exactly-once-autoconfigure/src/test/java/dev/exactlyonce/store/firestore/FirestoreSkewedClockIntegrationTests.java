package dev.exactlyonce.store.firestore;

import java.time.Clock;
import java.time.Duration;

import com.google.cloud.firestore.Firestore;

import dev.exactlyonce.store.AbstractSkewedClockStoreTests;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.FirestoreEmulatorProcess;

/**
 * Instances with disagreeing clocks on one {@link FirestoreIdempotencyStore} collection of Google's
 * Firestore emulator.
 */
class FirestoreSkewedClockIntegrationTests extends AbstractSkewedClockStoreTests {

	private static final Duration TTL = Duration.ofMinutes(10);

	private FirestoreEmulatorProcess emulator;

	private Firestore firestore;

	@Override
	protected void startInfrastructure() {
		this.emulator = new FirestoreEmulatorProcess().start();
		this.firestore = EmulatorClients.connect(this.emulator.hostPort());
	}

	@Override
	protected void stopInfrastructure() throws Exception {
		if (this.firestore != null) {
			this.firestore.close();
		}
		this.emulator.close();
	}

	@Override
	protected IdempotencyStore createStore(Clock clock) {
		return new FirestoreIdempotencyStore(this.firestore, "skew", new ClaimRules(clock, TTL), Duration.ofSeconds(5));
	}

}
