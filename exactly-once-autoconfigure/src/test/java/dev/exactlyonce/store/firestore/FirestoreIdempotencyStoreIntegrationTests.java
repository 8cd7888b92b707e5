package dev.exactlyonce.store.firestore;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.google.cloud.firestore.Firestore;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.AbstractRemoteIdempotencyStoreContractTests;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

/**
 * The store contract against {@link FirestoreIdempotencyStore} on Google's Firestore emulator.
 */
class FirestoreIdempotencyStoreIntegrationTests extends AbstractRemoteIdempotencyStoreContractTests {

	private final AtomicInteger collections = new AtomicInteger();

	private RunningEmulator emulator;

	private Firestore proxiedFirestore;

	@Override
	protected void startInfrastructure() {
		this.emulator = RunningEmulator.start();
	}

	@Override
	protected void stopInfrastructure() throws Exception {
		if (this.proxiedFirestore != null) {
			this.proxiedFirestore.close();
		}
		this.emulator.close();
	}

	/**
	 * Four racers: the emulator runs contended transactions one after another behind a lock, and
	 * sixteen on one document outwaited the 20 s call timeout on a loaded 2-core machine (CI, twice);
	 * four prove the same atomicity.
	 */
	@Override
	protected int racers() {
		return 4;
	}

	@Override
	protected IdempotencyStore createStore(Duration completedTtl) {
		return new FirestoreIdempotencyStore(this.emulator.client(), "contract-" + this.collections.incrementAndGet(),
				new ClaimRules(Clock.systemUTC(), completedTtl), RunningEmulator.CALL_TIMEOUT);
	}

	@Override
	protected IdempotencyStore createStoreBehind(TcpProxy proxy) {
		this.proxiedFirestore = RunningEmulator.connect("127.0.0.1:" + proxy.port());
		return new FirestoreIdempotencyStore(this.proxiedFirestore, "contract-behind-proxy",
				new ClaimRules(Clock.systemUTC(), LONG_TTL), CLIENT_TIMEOUT);
	}

	@Override
	protected ServerProcess server() {
		return this.emulator.process();
	}

	@Test
	void aDuplicateClaimReadsNoSealedJournalDocument() throws Exception {
		FirestoreRequestCounter journalRequests = new FirestoreRequestCounter("counted_journal");
		try (Firestore client = journalRequests.connect(this.emulator.process().hostPort())) {
			assertADuplicateClaimReadsNoJournalEntry(new FirestoreIdempotencyStore(client, "counted",
					new ClaimRules(Clock.systemUTC(), LONG_TTL), RunningEmulator.CALL_TIMEOUT), journalRequests::count);
		}
	}

}
