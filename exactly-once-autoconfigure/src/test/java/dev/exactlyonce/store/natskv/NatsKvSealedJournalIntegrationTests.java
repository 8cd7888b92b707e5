package dev.exactlyonce.store.natskv;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.api.StorageType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimLostException;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.RecordCodec;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.StoreKeyEncoder;
import dev.exactlyonce.store.SealedJournal;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.test.NatsServerProcess;

import static dev.exactlyonce.store.JournalSteps.ONE_MIB;
import static dev.exactlyonce.store.JournalSteps.RESULT;
import static dev.exactlyonce.store.JournalSteps.acquire;
import static dev.exactlyonce.store.JournalSteps.journal;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Long step journals on NATS KV: thousands of steps and results of a mebibyte, on a server with the
 * default 1 MiB {@code max_payload}, with the record staying small, every step journaled fenced,
 * and records of the earlier format resumed.
 */
class NatsKvSealedJournalIntegrationTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static final Duration TTL = Duration.ofHours(1);

	private static final AtomicInteger buckets = new AtomicInteger();

	private static NatsServerProcess server;

	private static Connection connection;

	private KeyValue bucket;

	@BeforeAll
	static void startServer() throws Exception {
		server = new NatsServerProcess().start();
		connection = Nats.connect(server.url());
	}

	@AfterAll
	static void stopServer() throws Exception {
		if (connection != null) {
			connection.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void tenThousandStepsAreJournaledWithASmallRecordAndReadBackWholeInOrder() throws Exception {
		IdempotencyStore store = newStore();
		Claim claim = acquire(store, "long", "worker-1", LEASE);
		int steps = 10_000;
		for (int step = 0; step < steps; step++) {
			journal(store, claim, "step-" + step, RESULT);
		}

		List<StepRecord> journal = store.find("long").orElseThrow().journal().steps();
		assertThat(journal).hasSize(steps);
		for (int step = 0; step < steps; step++) {
			assertThat(journal.get(step).name()).isEqualTo("step-" + step);
			assertThat(journal.get(step).state()).isEqualTo(StepState.DONE);
			assertThat(journal.get(step).result()).isEqualTo(RESULT);
		}
		assertThat(this.bucket.get(new StoreKeyEncoder(512).encode("long")).getValue())
			.as("the record's own value").hasSizeLessThan(32 * 1024);
	}

	@Test
	void aResultOfOneMebibyteIsJournaledAndReadBackAsItWas() throws Exception {
		IdempotencyStore store = newStore();
		Claim claim = acquire(store, "large", "worker-1", LEASE);
		String large = "\"" + "é".repeat(ONE_MIB / 2 - 1) + "\"";
		journal(store, claim, "draft", RESULT);
		journal(store, claim, "answer", large);
		journal(store, claim, "commit", RESULT);

		StepJournal journal = store.find("large").orElseThrow().journal();
		assertThat(journal.steps()).extracting(StepRecord::name).containsExactly("draft", "answer", "commit");
		assertThat(journal.find("answer").orElseThrow().result()).isEqualTo(large);
		assertThat(large.getBytes(StandardCharsets.UTF_8).length).as("bytes of the result").isEqualTo(ONE_MIB);
	}

	@Test
	void anAttemptThatTakesOverResumesTheWholeJournalAndAZombiesSealedPartsAreNeverPartOfIt() throws Exception {
		IdempotencyStore store = newStore();
		Claim zombie = acquire(store, "taken-over", "worker-1", Duration.ofMillis(500));
		for (int step = 0; step < 300; step++) {
			journal(store, zombie, "first-" + step, RESULT);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(zombie.leaseUntil().plusMillis(50)));
		ClaimResult.Acquired current = (ClaimResult.Acquired) store.tryClaim("taken-over", "worker-2", LEASE);
		assertThat(current.journal().steps()).hasSize(300);

		String large = "\"" + "z".repeat(64 * 1024) + "\"";
		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(() -> store.recordStep(zombie,
				StepRecord.started("first-0", zombie.attempt(), zombie.token(), Instant.now()).done(large, Instant.now())));
		journal(store, current.claim(), "second", RESULT);

		StepJournal journal = store.find("taken-over").orElseThrow().journal();
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
		this.bucket.create("earlier", earlierFormat.encode(abandoned));

		ClaimResult.Acquired resumed = (ClaimResult.Acquired) store.tryClaim("earlier", "worker-1", LEASE);
		assertThat(resumed.journal()).isEqualTo(earlierJournal);
		assertThat(resumed.previousAttempt().lastStep()).contains("commit");
		journal(store, resumed.claim(), "commit", RESULT);
		assertThat(earlierFormat.decode(this.bucket.get("earlier").getValue()).journal().steps())
			.as("a journal without sealed parts, as an earlier version reads it")
			.extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.DONE),
					tuple("commit", StepState.DONE));

		journal(store, resumed.claim(), "answer", "\"" + "a".repeat(SealedJournal.SEAL_BYTES) + "\"");
		assertThat(store.find("earlier").orElseThrow().journal().steps()).extracting(StepRecord::name)
			.containsExactly("draft", "commit", "answer");
		assertThatExceptionOfType(StoreUnavailableException.class)
			.as("an earlier version stays off a record whose journal it would read only in part")
			.isThrownBy(() -> earlierFormat.decode(this.bucket.get("earlier").getValue()));
	}

	@Test
	void aRecordThatOutlivedItsSealedPartsStillAnswersDuplicatesAndTakesWritesAndOnlyAResumeFailsNamingTheFix()
			throws Exception {
		IdempotencyStore store = newStore();
		Claim claim = acquire(store, "outlived", "worker-1", LEASE);
		for (int step = 0; step < 100; step++) {
			journal(store, claim, "step-" + step, RESULT);
		}
		Claim renewed = store.renew(claim, LEASE);
		IdempotencyRecord completed = store.complete(renewed, Completion.completed("listener", 1, "done"));
		// the bucket's TTL counts from each value's write: the parts, written first, go first
		for (String key : this.bucket.keys(SealedJournal.prefix(new StoreKeyEncoder(512).encode("outlived")) + ">")) {
			this.bucket.delete(key);
		}

		assertThat(store.tryClaim("outlived", "worker-2", LEASE)).as("a duplicate of the completed key")
			.isInstanceOf(ClaimResult.Completed.class);
		store.recordDuplicate("outlived", 7);
		assertThatExceptionOfType(JournalPartMissingException.class).isThrownBy(() -> store.find("outlived"))
			.withMessageContaining("no longer holds")
			.withMessageContaining("resubmit it to run it from the start")
			.satisfies((ex) -> assertThat(ex.record().token()).as("the record, for a discard or a resubmit")
				.isEqualTo(completed.token()));
		IdempotencyRecord resubmitted = store.recordOperatorAction("outlived", completed.token(),
				new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "alice", "parts expired", Instant.now(), 0));
		ClaimResult.Acquired rerun = (ClaimResult.Acquired) store.tryClaim("outlived", "worker-2", LEASE);
		assertThat(rerun.journal().steps()).as("a resubmit runs the task from the start").isEmpty();
		assertThat(resubmitted.duplicateSequences()).contains(7L);
	}

	@Test
	void aSealingWriteWhoseAnswerWasLostNeverHasItsPartOverwrittenByTheNextWrite() throws Exception {
		IdempotencyStore reader = newStore();
		KeyValue real = this.bucket;
		AtomicBoolean loseNextUpdateAnswer = new AtomicBoolean();
		KeyValue lossy = (KeyValue) Proxy.newProxyInstance(KeyValue.class.getClassLoader(),
				new Class<?>[] { KeyValue.class }, (proxy, method, args) -> {
					Object answer;
					try {
						answer = method.invoke(real, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					if (method.getName().equals("update") && loseNextUpdateAnswer.getAndSet(false)) {
						throw new IOException("Timeout or no response waiting for NATS JetStream server");
					}
					return answer;
				});
		IdempotencyStore store = new NatsKvIdempotencyStore(lossy, real, new ClaimRules(Clock.systemUTC(), TTL),
				connection.getServerInfo().getMaxPayload());
		Claim claim = acquire(store, "lost", "worker-1", LEASE);
		StepRecord answer = StepRecord.started("answer", 1, claim.token(), Instant.now());
		store.recordStep(claim, answer);
		String large = "\"" + "a".repeat(1_200_000) + "\"";
		loseNextUpdateAnswer.set(true);
		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> store.recordStep(claim, answer.done(large, Instant.now())));

		store.recordStep(claim, StepRecord.started("b".repeat(10_000), 1, claim.token(), Instant.now()));

		assertThat(reader.find("lost").orElseThrow().journal().steps())
			.extracting((step) -> step.name().substring(0, 1), StepRecord::state,
					(step) -> (step.result() != null) ? step.result().length() : 0)
			.containsExactly(tuple("a", StepState.DONE, large.length()), tuple("b", StepState.STARTED, 0));
	}

	private IdempotencyStore newStore() throws Exception {
		String name = "sealed-" + buckets.incrementAndGet();
		IdempotencyStore store = new NatsKvBucketProvisioner(connection, Duration.ofSeconds(2)).provisionStore(
				new NatsKvBucketSpec(name, TTL, StorageType.File, 1, NatsKvBucketSpec.largestRecord(1024)),
				new ClaimRules(Clock.systemUTC(), TTL), connection.getServerInfo().getMaxPayload());
		this.bucket = connection.keyValue(name);
		return store;
	}

}
