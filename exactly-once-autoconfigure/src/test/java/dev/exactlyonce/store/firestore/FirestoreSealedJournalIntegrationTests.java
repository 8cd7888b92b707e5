package dev.exactlyonce.store.firestore;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.google.cloud.firestore.Blob;
import com.google.cloud.firestore.CollectionReference;
import com.google.cloud.firestore.DocumentSnapshot;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreUnavailableException;

import static dev.exactlyonce.store.JournalSteps.ONE_MIB;
import static dev.exactlyonce.store.JournalSteps.RESULT;
import static dev.exactlyonce.store.JournalSteps.acquire;
import static dev.exactlyonce.store.JournalSteps.journal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Long step journals on {@link FirestoreIdempotencyStore} on Google's Firestore emulator: thousands
 * of steps and results of a mebibyte, with the record document staying small, a zombie's step
 * writing no part, a part that no record names never read as part of a journal, and records of the
 * earlier format resumed.
 */
class FirestoreSealedJournalIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static final Duration TTL = Duration.ofHours(1);

	/** A step result of a typical size, as the NATS KV benchmark journals. */

	private static final AtomicInteger collections = new AtomicInteger();

	private static RunningEmulator emulator;

	private CollectionReference records;

	private CollectionReference parts;

	@BeforeAll
	static void startEmulator() {
		emulator = RunningEmulator.start();
	}

	@AfterAll
	static void stopEmulator() throws Exception {
		if (emulator != null) {
			emulator.close();
		}
	}

	/**
	 * Enough steps to seal some 14 parts (the contract suite journals 2,000 on every store; the
	 * emulator takes 150 s for 10,000: two transactions a step, 6 to 17 ms each), read back by
	 * another instance, which cannot know them.
	 */
	@Test
	void hundredsOfStepsAreSealedWithASmallRecordAndReadBackWholeInOrderByAnotherInstance() throws Exception {
		IdempotencyStore store = newStore();
		Claim claim = acquire(store, "long", "worker-1", LEASE);
		int steps = 300;
		for (int step = 0; step < steps; step++) {
			journal(store, claim, "step-" + step, RESULT);
		}

		assertThat(store.find("long").orElseThrow().journal().steps()).hasSize(steps);
		List<StepRecord> journal = anotherInstance().find("long").orElseThrow().journal().steps();
		assertThat(journal).hasSize(steps);
		for (int step = 0; step < steps; step++) {
			assertThat(journal.get(step).name()).isEqualTo("step-" + step);
			assertThat(journal.get(step).state()).isEqualTo(StepState.DONE);
			assertThat(journal.get(step).result()).isEqualTo(RESULT);
		}
		assertThat(FirestoreRecordDocument.journal(recordDocument("long")))
			.as("the journal field of the record's own document").hasSizeLessThan(32 * 1024);
	}

	@Test
	void aResultOfOneMebibyteIsJournaledAndReadBackAsItWas() throws Exception {
		IdempotencyStore store = newStore();
		Claim claim = acquire(store, "large", "worker-1", LEASE);
		String large = "\"" + "é".repeat(ONE_MIB / 2 - 1) + "\"";
		journal(store, claim, "draft", RESULT);
		journal(store, claim, "answer", large);
		journal(store, claim, "commit", RESULT);

		StepJournal journal = anotherInstance().find("large").orElseThrow().journal();
		assertThat(journal.steps()).extracting(StepRecord::name).containsExactly("draft", "answer", "commit");
		assertThat(journal.find("answer").orElseThrow().result()).isEqualTo(large);
		assertThat(large.getBytes(StandardCharsets.UTF_8).length).as("bytes of the result").isEqualTo(ONE_MIB);
		Instant expiresAt = store.find("large").orElseThrow().expiresAt();
		assertThat(partsOf("large")).as("chunks of at most 512 KiB, forgotten by the records' TTL policy")
			.hasSizeGreaterThan(1)
			.allSatisfy((part) -> {
				assertThat(part.getBlob("value").toBytes().length).isLessThanOrEqualTo(512 * 1024);
				assertThat(part.getTimestamp("expiresAt").toDate().toInstant()).isAfter(Instant.now())
					.isBefore(expiresAt.plusSeconds(1));
			});
	}

	@Test
	void anAttemptThatTakesOverResumesTheWholeJournalAndAPartNoRecordNamesIsNeverPartOfIt() throws Exception {
		IdempotencyStore zombieStore = newStore();
		Claim zombie = acquire(zombieStore, "taken-over", "worker-1", Duration.ofMillis(500));
		for (int step = 0; step < 300; step++) {
			journal(zombieStore, zombie, "first-" + step, RESULT);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(zombie.leaseUntil().plusMillis(50)));
		IdempotencyStore store = anotherInstance();
		ClaimResult.Acquired current = (ClaimResult.Acquired) store.tryClaim("taken-over", "worker-2", LEASE);
		assertThat(current.journal().steps()).hasSize(300);
		int partsBefore = partsOf("taken-over").size();

		StepRecord zombieStep = StepRecord.started("first-0", zombie.attempt(), zombie.token(), Instant.now())
			.done("\"" + "z".repeat(64 * 1024) + "\"", Instant.now());
		assertThatExceptionOfType(ClaimLostException.class)
			.isThrownBy(() -> zombieStore.recordStep(zombie, zombieStep));
		assertThat(partsOf("taken-over")).as("parts after the zombie's refused step").hasSize(partsBefore);
		byte[] unnamed = new RecordCodec().encodeJournal(new StepJournal(List.of(zombieStep)))
			.getBytes(StandardCharsets.UTF_8);
		this.parts.document(SealedJournal.prefix("k-taken-over") + zombie.token() + ".unnamed.s.0")
			.set(Map.of("value", Blob.fromBytes(unnamed)))
			.get();
		journal(store, current.claim(), "second", RESULT);

		StepJournal journal = anotherInstance().find("taken-over").orElseThrow().journal();
		assertThat(journal.steps()).hasSize(301);
		assertThat(journal.find("first-0").orElseThrow().result()).isEqualTo(RESULT);
		assertThat(journal.find("second").orElseThrow().attempt()).isEqualTo(2);
	}

	@Test
	void aRecordOfTheEarlierFormatIsResumedAndAnEarlierReaderRefusesARecordWithSealedParts() throws Exception {
		IdempotencyStore store = newStore();
		RecordCodec earlierFormat = new RecordCodec();
		Instant now = Instant.now();
		StepJournal earlierJournal = new StepJournal(List.of(
				StepRecord.started("draft", 1, "origin-1", now).done("\"first draft\"", now),
				StepRecord.started("commit", 1, "origin-1", now)));
		IdempotencyRecord abandoned = new IdempotencyRecord("earlier", null, "worker-0", "token-0",
				RecordState.IN_PROGRESS, 1, now.minusSeconds(60), now.minusSeconds(30), 0, null, now.plus(TTL), null,
				null, earlierJournal, null, null);
		this.records.document("k-earlier")
			.create(FirestoreRecordDocument.fields(abandoned, earlierFormat.encodeJournal(earlierJournal)))
			.get();

		ClaimResult.Acquired resumed = (ClaimResult.Acquired) store.tryClaim("earlier", "worker-1", LEASE);
		assertThat(resumed.journal()).isEqualTo(earlierJournal);
		assertThat(resumed.previousAttempt().lastStep()).contains("commit");
		journal(store, resumed.claim(), "commit", RESULT);
		assertThat(earlierFormat.decodeJournal(FirestoreRecordDocument.journal(recordDocument("earlier"))).steps())
			.as("a journal without sealed parts, as an earlier version reads it")
			.extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.DONE), tuple("commit", StepState.DONE));

		journal(store, resumed.claim(), "answer", "\"" + "a".repeat(SealedJournal.SEAL_BYTES) + "\"");
		assertThat(anotherInstance().find("earlier").orElseThrow().journal().steps()).extracting(StepRecord::name)
			.containsExactly("draft", "commit", "answer");
		assertThatExceptionOfType(StoreUnavailableException.class)
			.as("an earlier version stays off a record whose journal it would read only in part")
			.isThrownBy(() -> earlierFormat.decodeJournal(FirestoreRecordDocument.journal(recordDocument("earlier"))));
	}

	private IdempotencyStore newStore() {
		String name = "sealed-" + collections.incrementAndGet();
		this.records = emulator.client().collection(name);
		this.parts = emulator.client().collection(name + "_journal");
		return anotherInstance();
	}

	/** A store on the collection of the last {@link #newStore()}, as another application instance has it. */
	private IdempotencyStore anotherInstance() {
		return new FirestoreIdempotencyStore(emulator.client(), this.records.getId(),
				new ClaimRules(Clock.systemUTC(), TTL), RunningEmulator.CALL_TIMEOUT);
	}

	private DocumentSnapshot recordDocument(String key) throws Exception {
		return this.records.document("k-" + key).get().get();
	}

	private List<QueryDocumentSnapshot> partsOf(String key) throws Exception {
		String prefix = SealedJournal.prefix("k-" + key);
		return this.parts.get()
			.get()
			.getDocuments()
			.stream()
			.filter((part) -> part.getId().startsWith(prefix))
			.toList();
	}

}
