package dev.exactlyonce.store;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The contract every {@link IdempotencyStore} honours, run against each store by a subclass. Each
 * test uses its own keys, so one store instance serves them all.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractIdempotencyStoreContractTests {

	/** The record TTL of the store most tests use: long enough to never expire during a test. */
	protected static final Duration LONG_TTL = Duration.ofMinutes(10);

	/** The record TTL of the store that checks expiry. */
	protected static final Duration SHORT_TTL = Duration.ofSeconds(3);

	private static final Duration LEASE = Duration.ofSeconds(30);

	/**
	 * How far a store's instants may be from this JVM's clock, and a record {@code find} gives from
	 * the claim's: a store that decides leases on its server's clock writes that clock's time, known
	 * to within a round trip, and moves what {@code find} gives onto this JVM's clock (the servers of
	 * these tests run on this machine, so their clocks agree with this JVM's).
	 */
	private static final Duration CLOCK_TOLERANCE = Duration.ofMillis(100);

	private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

	private static final int RACERS = 16;

	/** How many claimants or operators race for one key in the race tests. */
	private final int racerCount = racers();

	/** Writers racing on one record: each must write, so a transactional store retries every loser. */
	private static final int NOTE_RACERS = 4;

	private IdempotencyStore store;

	private ExecutorService racers;

	/**
	 * Starts whatever the store needs (a server, a connection).
	 * @throws Exception when it cannot start
	 */
	protected void startInfrastructure() throws Exception {
	}

	/**
	 * Stops what {@link #startInfrastructure()} started.
	 * @throws Exception when it cannot stop
	 */
	protected void stopInfrastructure() throws Exception {
	}

	/**
	 * How many callers race for one key in the race tests; 16 unless a store's test server
	 * serialises contended writes so slowly that the losers outwait the call timeout.
	 * @return the number of racers, at least 2
	 */
	protected int racers() {
		return RACERS;
	}

	/**
	 * Creates a store, separate from every store created before (its own bucket, prefix or
	 * collection), whose records live {@code completedTtl}.
	 * @param completedTtl how long records are kept
	 * @return the store
	 * @throws Exception when it cannot be created
	 */
	protected abstract IdempotencyStore createStore(Duration completedTtl) throws Exception;

	@BeforeAll
	void setUpStore() throws Exception {
		this.racers = Executors.newFixedThreadPool(this.racerCount);
		startInfrastructure();
		this.store = createStore(LONG_TTL);
	}

	@AfterAll
	void tearDownStore() throws Exception {
		this.racers.shutdownNow();
		stopInfrastructure();
	}

	/**
	 * The store most tests use.
	 * @return the store
	 */
	protected IdempotencyStore store() {
		return this.store;
	}

	/**
	 * A key no other test uses.
	 * @param name a readable part
	 * @return the key
	 */
	protected static String uniqueKey(String name) {
		return "listener:" + name + ":" + UUID.randomUUID();
	}

	@Test
	void freshKeyIsAcquiredWithAFirstAttempt() {
		String key = uniqueKey("fresh");
		Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);

		ClaimResult.Acquired acquired = acquire(key, "worker-1", LEASE);

		Claim claim = acquired.claim();
		assertThat(acquired.previousAttempt()).isNull();
		assertThat(claim.key()).isEqualTo(key);
		assertThat(claim.owner()).isEqualTo("worker-1");
		assertThat(claim.token()).isNotBlank();
		assertThat(claim.attempt()).isEqualTo(1);
		assertThat(claim.startedAt()).isBetween(before.minus(CLOCK_TOLERANCE), Instant.now().plus(CLOCK_TOLERANCE));
		assertThat(claim.leaseUntil()).isCloseTo(claim.startedAt().plus(LEASE), within(1, ChronoUnit.MILLIS));
		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.owner()).isEqualTo("worker-1");
		assertThat(record.token()).isEqualTo(claim.token());
		assertThat(record.attempts()).isEqualTo(1);
	}

	@Test
	void secondClaimSeesTheHolderAndItsLease() {
		String key = uniqueKey("held");
		Claim first = acquire(key, "worker-1", LEASE).claim();

		ClaimResult second = this.store.tryClaim(key, "worker-2", LEASE);

		assertThat(second).isInstanceOfSatisfying(ClaimResult.HeldElsewhere.class, (held) -> {
			assertThat(held.owner()).isEqualTo("worker-1");
			assertThat(held.leaseUntil()).isCloseTo(first.leaseUntil(), within(CLOCK_TOLERANCE.toMillis(), ChronoUnit.MILLIS));
		});
	}

	@Test
	void exactlyOneOfManyRacingClaimantsWins() throws Exception {
		String key = uniqueKey("race");

		List<ClaimResult> results = race((i) -> () -> this.store.tryClaim(key, "worker-" + i, LEASE));

		List<ClaimResult.Acquired> winners = acquiredOf(results);
		assertThat(winners).hasSize(1);
		String winner = winners.get(0).claim().owner();
		assertThat(results).filteredOn(ClaimResult.HeldElsewhere.class::isInstance)
			.hasSize(this.racerCount - 1)
			.allSatisfy((result) -> assertThat(((ClaimResult.HeldElsewhere) result).owner()).isEqualTo(winner));
	}

	@Test
	void abandonedClaimIsReclaimedByExactlyOneRacingClaimantWhoSeesThePreviousAttempt() throws Exception {
		String key = uniqueKey("abandoned");
		Claim abandoned = acquire(key, "dead-worker", SHORT_LEASE).claim();
		awaitLeaseEnd(abandoned);

		List<ClaimResult> results = race((i) -> () -> this.store.tryClaim(key, "worker-" + i, LEASE));

		List<ClaimResult.Acquired> winners = acquiredOf(results);
		assertThat(winners).hasSize(1);
		ClaimResult.Acquired winner = winners.get(0);
		assertThat(winner.claim().attempt()).isEqualTo(2);
		assertThat(winner.claim().token()).isNotEqualTo(abandoned.token());
		PreviousAttempt previous = winner.previousAttempt();
		assertThat(previous).isNotNull();
		assertThat(previous.abandoned()).isTrue();
		assertThat(previous.owner()).isEqualTo("dead-worker");
		assertThat(previous.attempts()).isEqualTo(1);
		assertThat(previous.token()).as("the taken-over attempt's fencing token, kept in the record")
			.isEqualTo(abandoned.token());
		assertThat(this.store.find(key).orElseThrow().previousAttempt().token()).isEqualTo(abandoned.token());
		assertThat(previous.startedAt()).isCloseTo(abandoned.startedAt(), within(1, ChronoUnit.MILLIS));
		assertThat(results).filteredOn(ClaimResult.HeldElsewhere.class::isInstance).hasSize(this.racerCount - 1);
	}

	@Test
	void renewExtendsTheLease() {
		String key = uniqueKey("renew");
		Claim claim = acquire(key, "worker-1", SHORT_LEASE).claim();

		Claim renewed = this.store.renew(claim, LEASE);

		assertThat(renewed.token()).isEqualTo(claim.token());
		assertThat(renewed.leaseUntil()).isAfter(claim.leaseUntil().plus(Duration.ofSeconds(20)));
		awaitLeaseEnd(claim);
		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOfSatisfying(
				ClaimResult.HeldElsewhere.class, (held) -> assertThat(held.owner()).isEqualTo("worker-1"));
		assertThat(this.store.find(key).orElseThrow().leaseUntil()).isCloseTo(renewed.leaseUntil(),
				within(CLOCK_TOLERANCE.toMillis(), ChronoUnit.MILLIS));
	}

	@Test
	void renewFailsAfterTakeover() {
		Takeover takeover = takeOver(uniqueKey("renew-lost"));

		assertThatExceptionOfType(ClaimLostException.class)
			.isThrownBy(() -> this.store.renew(takeover.zombie(), LEASE));
		assertThat(this.store.renew(takeover.current(), LEASE).owner()).isEqualTo("worker-2");
	}

	@Test
	void completeIsACompareAndSetOnTheFencingToken() {
		String key = uniqueKey("zombie");
		Takeover takeover = takeOver(key);

		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(
				() -> this.store.complete(takeover.zombie(), Completion.completed("listener", 7, "zombie result")));
		assertThatExceptionOfType(ClaimLostException.class)
			.isThrownBy(() -> this.store.release(takeover.zombie(), "zombie"));

		IdempotencyRecord record = this.store.complete(takeover.current(),
				Completion.completed("listener", 8, "real result"));
		assertThat(record.owner()).isEqualTo("worker-2");
		assertThat(record.token()).isEqualTo(takeover.current().token());
		assertThat(this.store.find(key).orElseThrow().resultSummary()).isEqualTo("real result");
	}

	@Test
	void completedKeyIsAnsweredWithItsRecord() {
		String key = uniqueKey("completed");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		Instant beforeCompletion = Instant.now().truncatedTo(ChronoUnit.MILLIS);

		IdempotencyRecord written = this.store.complete(claim, Completion.completed("task-listener", 42, "posted #17"));

		ClaimResult again = this.store.tryClaim(key, "worker-2", LEASE);
		assertThat(again).isInstanceOf(ClaimResult.Completed.class);
		IdempotencyRecord record = ((ClaimResult.Completed) again).record();
		assertThat(record.key()).isEqualTo(key);
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.owner()).isEqualTo("worker-1");
		assertThat(record.token()).isEqualTo(claim.token());
		assertThat(record.listener()).isEqualTo("task-listener");
		assertThat(record.streamSequence()).isEqualTo(42);
		assertThat(record.resultSummary()).isEqualTo("posted #17");
		assertThat(record.attempts()).isEqualTo(1);
		assertThat(record.startedAt()).isCloseTo(claim.startedAt(), within(1, ChronoUnit.MILLIS));
		assertThat(record.completedAt()).isBetween(beforeCompletion.minus(CLOCK_TOLERANCE),
				Instant.now().plus(CLOCK_TOLERANCE));
		assertThat(record.expiresAt()).isCloseTo(record.completedAt().plus(LONG_TTL), within(1, ChronoUnit.MILLIS));
		assertThat(written.completedAt()).isCloseTo(record.completedAt(), within(1, ChronoUnit.MILLIS));
		assertThat(this.store.find(key)).hasValueSatisfying((found) -> {
			assertThat(found.state()).isEqualTo(RecordState.COMPLETED);
			assertThat(found.streamSequence()).isEqualTo(42);
		});
		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(() -> this.store.renew(claim, LEASE));
	}

	@Test
	void deadLetteredKeyIsNotRunAgain() {
		String key = uniqueKey("dead-lettered");
		Claim claim = acquire(key, "worker-1", LEASE).claim();

		this.store.complete(claim, Completion.deadLettered("task-listener", 5, "poison"));

		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOfSatisfying(
				ClaimResult.DeadLettered.class, (dead) -> assertThat(dead.record().resultSummary()).isEqualTo("poison"));
	}

	@Test
	void releasedAttemptIsMarkedFailedAndTheNextClaimAcquiresIt() {
		String key = uniqueKey("released");
		Claim failed = acquire(key, "worker-1", LEASE).claim();

		this.store.release(failed, "IllegalStateException: model timed out");

		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.FAILED);
		assertThat(record.resultSummary()).isEqualTo("IllegalStateException: model timed out");
		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);
		assertThat(next.claim().attempt()).isEqualTo(2);
		assertThat(next.previousAttempt()).satisfies((previous) -> {
			assertThat(previous.abandoned()).isFalse();
			assertThat(previous.state()).isEqualTo(RecordState.FAILED);
			assertThat(previous.owner()).isEqualTo("worker-1");
			assertThat(previous.failure()).isEqualTo("IllegalStateException: model timed out");
		});
		assertThatExceptionOfType(ClaimLostException.class)
			.isThrownBy(() -> this.store.complete(failed, Completion.completed("listener", 1, null)));
	}

	@Test
	void releaseByARoutineShutdownGivesItsAttemptBack() {
		String key = uniqueKey("shutdown");
		Claim interrupted = acquire(key, "worker-1", LEASE).claim();

		this.store.release(interrupted, IdempotencyStore.RELEASED_BY_SHUTDOWN);

		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.FAILED);
		assertThat(record.resultSummary()).isEqualTo(IdempotencyStore.RELEASED_BY_SHUTDOWN);
		assertThat(record.attempts()).isZero();
		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);
		assertThat(next.claim().attempt()).isEqualTo(1);
		assertThat(next.previousAttempt()).satisfies((previous) -> {
			assertThat(previous.state()).isEqualTo(RecordState.FAILED);
			assertThat(previous.owner()).isEqualTo("worker-1");
			assertThat(previous.failure()).isEqualTo(IdempotencyStore.RELEASED_BY_SHUTDOWN);
		});
		this.store.release(next.claim(), "IllegalStateException: model timed out");
		assertThat(acquire(key, "worker-3", LEASE).claim().attempt()).isEqualTo(2);
	}

	@Test
	void completedRecordsExpireAfterTheCompletedTtl() throws Exception {
		IdempotencyStore shortLived = createStore(SHORT_TTL);
		String key = uniqueKey("expiring");
		Claim claim = ((ClaimResult.Acquired) shortLived.tryClaim(key, "worker-1", LEASE)).claim();
		IdempotencyRecord completed = shortLived.complete(claim, Completion.completed("listener", 1, "done"));
		Instant expiry = completed.completedAt().plus(SHORT_TTL);

		assertThat(shortLived.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.Completed.class);
		await().atMost(SHORT_TTL.plusSeconds(10)).pollInterval(Duration.ofMillis(100))
			.until(() -> shortLived.find(key).isEmpty());

		assertThat(Instant.now()).isAfterOrEqualTo(expiry.minusMillis(5));
		ClaimResult afterExpiry = shortLived.tryClaim(key, "worker-3", LEASE);
		assertThat(afterExpiry).isInstanceOfSatisfying(ClaimResult.Acquired.class, (acquired) -> {
			assertThat(acquired.claim().attempt()).isEqualTo(1);
			assertThat(acquired.previousAttempt()).isNull();
		});
	}

	@Test
	void awkwardKeysRoundTripWithoutCollision() {
		String base = uniqueKey("awkward");
		List<String> keys = List.of(base + " with spaces", base + "/with/slashes", base + "_with_slashes",
				base + "=2Fwith=2Fslashes", base + ".with.dots", base + ":ключ-ü-日本-🚀", base + "\u0000nul",
				base + "x".repeat(1024), base + "x".repeat(1023) + "y", base + "__reserved__", "__" + base + "__");
		List<Claim> claims = new ArrayList<>();
		for (String key : keys) {
			claims.add(acquire(key, "worker-" + keys.indexOf(key), LEASE).claim());
		}
		for (Claim claim : claims) {
			this.store.complete(claim, Completion.completed("listener", 1, claim.owner()));
		}
		for (int i = 0; i < keys.size(); i++) {
			IdempotencyRecord record = this.store.find(keys.get(i)).orElseThrow();
			assertThat(record.key()).isEqualTo(keys.get(i));
			assertThat(record.resultSummary()).isEqualTo("worker-" + i);
		}
	}

	@Test
	void scanListsEveryRecordWithItsState() throws Exception {
		IdempotencyStore separate = createStore(LONG_TTL);
		assertThat(separate).isInstanceOf(RecordScanner.class);
		String held = uniqueKey("scan-held");
		String completed = uniqueKey("scan-completed");
		String released = uniqueKey("scan-released");
		separate.tryClaim(held, "worker-1", LEASE);
		Claim toComplete = ((ClaimResult.Acquired) separate.tryClaim(completed, "worker-1", LEASE)).claim();
		separate.complete(toComplete, Completion.completed("listener", 9, "done"));
		Claim toRelease = ((ClaimResult.Acquired) separate.tryClaim(released, "worker-1", LEASE)).claim();
		separate.release(toRelease, "failed");

		Map<String, RecordState> scanned = new ConcurrentHashMap<>();
		((RecordScanner) separate).scan((record) -> scanned.put(record.key(), record.state()));

		assertThat(scanned).containsOnly(entry(held, RecordState.IN_PROGRESS), entry(completed, RecordState.COMPLETED),
				entry(released, RecordState.FAILED));
	}

	@Test
	void scanEndsWithTheFirstExceptionOfItsActionAndHandsNothingAfterIt() throws Exception {
		IdempotencyStore separate = createStore(LONG_TTL);
		for (int i = 0; i < 5; i++) {
			separate.tryClaim(uniqueKey("scan-abort-" + i), "worker-1", LEASE);
		}
		AtomicInteger handed = new AtomicInteger();
		IllegalStateException stop = new IllegalStateException("reconciliation gave up");

		assertThatThrownBy(() -> ((RecordScanner) separate).scan((record) -> {
			handed.incrementAndGet();
			throw stop;
		})).isSameAs(stop);
		int handedWhenItReturned = handed.get();
		separate.tryClaim(uniqueKey("scan-abort-after"), "worker-1", LEASE);

		assertThat(handedWhenItReturned).isEqualTo(1);
		assertThat(handed).hasValue(1);
	}

	@Test
	void stepsAreJournaledInTheOrderTheyFirstStartedOneEntryPerName() {
		String key = uniqueKey("journal-order");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		Instant now = Instant.now();
		StepRecord draft = StepRecord.started("draft", 1, "origin", now);

		this.store.recordStep(claim, draft);
		this.store.recordStep(claim, StepRecord.started("commit", 1, "origin", now.plusMillis(1)));
		this.store.recordStep(claim, draft.done("{\"title\":\"Launch\"}", now.plusMillis(2)));
		this.store.recordStep(claim, StepRecord.started("deploy", 1, "origin", now.plusMillis(3)).failed(now.plusMillis(4)));

		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.DONE), tuple("commit", StepState.STARTED),
					tuple("deploy", StepState.FAILED));
		StepRecord done = record.journal().find("draft").orElseThrow();
		assertThat(done.result()).isEqualTo("{\"title\":\"Launch\"}");
		assertThat(done.attempt()).isEqualTo(1);
		assertThat(done.startedAt()).isEqualTo(now);
		assertThat(done.doneAt()).isEqualTo(now.plusMillis(2));
		assertThat(record.journal().find("commit").orElseThrow().result()).isNull();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.leaseUntil()).isCloseTo(claim.leaseUntil(), within(CLOCK_TOLERANCE.toMillis(), ChronoUnit.MILLIS));
		this.store.renew(claim, LEASE);
		assertThat(this.store.find(key).orElseThrow().journal()).isEqualTo(record.journal());
	}

	@Test
	void stepWritesAreACompareAndSetOnTheFencingToken() {
		String key = uniqueKey("journal-zombie");
		Takeover takeover = takeOver(key);

		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(
				() -> this.store.recordStep(takeover.zombie(), StepRecord.started("commit", 1, "origin", Instant.now())));
		this.store.recordStep(takeover.current(), StepRecord.started("draft", 2, "origin", Instant.now()));

		assertThat(this.store.find(key).orElseThrow().journal().steps()).singleElement()
			.satisfies((step) -> assertThat(step.name()).isEqualTo("draft"));
		this.store.complete(takeover.current(), Completion.completed("listener", 1, "done"));
		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(
				() -> this.store.recordStep(takeover.current(), StepRecord.started("late", 2, "origin", Instant.now())));
	}

	/**
	 * Entries journaled several in one write (a step's {@code DONE} with the next step's
	 * {@code STARTED}, a step started and finished in one write) leave the journal that a write of
	 * each in order leaves, and the claim that takes the task over resumes it where it stopped.
	 */
	@Test
	void severalEntriesInOneWriteLeaveTheJournalOneWriteEachWould() {
		String batched = uniqueKey("journal-batched");
		String single = uniqueKey("journal-single");
		Claim batchedClaim = acquire(batched, "worker-1", LEASE).claim();
		Claim singleClaim = acquire(single, "worker-1", LEASE).claim();
		Instant now = Instant.now();
		StepRecord draft = StepRecord.started("draft", 1, "origin", now);
		StepRecord commit = StepRecord.started("commit", 1, "origin", now.plusMillis(2));
		StepRecord notify = StepRecord.started("notify", 1, "origin", now.plusMillis(4));
		List<List<StepRecord>> writes = List.of(List.of(draft),
				List.of(draft.done("{\"title\":\"Launch\"}", now.plusMillis(1)), commit),
				List.of(commit.done("\"sha\"", now.plusMillis(3)), StepRecord.started("deploy", 1, "origin", now.plusMillis(3)),
						notify, notify.failed(now.plusMillis(5))));

		for (List<StepRecord> entries : writes) {
			this.store.recordSteps(batchedClaim, entries);
			entries.forEach((step) -> this.store.recordStep(singleClaim, step));
		}

		StepJournal journal = this.store.find(batched).orElseThrow().journal();
		assertThat(journal).isEqualTo(this.store.find(single).orElseThrow().journal());
		assertThat(journal.steps()).extracting(StepRecord::name, StepRecord::state, StepRecord::result)
			.containsExactly(tuple("draft", StepState.DONE, "{\"title\":\"Launch\"}"),
					tuple("commit", StepState.DONE, "\"sha\""), tuple("deploy", StepState.STARTED, null),
					tuple("notify", StepState.FAILED, null));
		this.store.release(batchedClaim, "failed");
		ClaimResult.Acquired next = acquire(batched, "worker-2", LEASE);
		assertThat(next.journal()).isEqualTo(journal);
		assertThat(next.previousAttempt().lastStep()).contains("deploy");
	}

	@Test
	void aLostClaimJournalsNoneOfTheEntriesOfItsWrite() {
		String key = uniqueKey("journal-batch-lost");
		Takeover takeover = takeOver(key);
		StepRecord draft = StepRecord.started("draft", 2, "origin", Instant.now());
		this.store.recordStep(takeover.current(), draft);
		List<StepRecord> zombies = List.of(StepRecord.started("draft", 1, "origin", Instant.now()).done("\"zombie\"",
				Instant.now()), StepRecord.started("commit", 1, "origin", Instant.now()));

		assertThatExceptionOfType(ClaimLostException.class)
			.isThrownBy(() -> this.store.recordSteps(takeover.zombie(), zombies));

		assertThat(this.store.find(key).orElseThrow().journal().steps()).containsExactly(draft);
		this.store.complete(takeover.current(), Completion.completed("listener", 1, "done"));
		assertThatExceptionOfType(ClaimLostException.class).isThrownBy(() -> this.store.recordSteps(takeover.current(),
				List.of(draft.done("\"late\"", Instant.now()), StepRecord.started("late", 2, "origin", Instant.now()))));
		IdempotencyRecord completed = this.store.find(key).orElseThrow();
		assertThat(completed.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(completed.journal().steps()).containsExactly(draft);
	}

	/**
	 * Writes of several entries that cross the size past which a store without partial updates
	 * seals its journal ({@link SealedJournal#SEAL_BYTES}): one whose first entry seals the tail and
	 * whose next starts a new one, one whose every entry seals (more than a record names, so an
	 * index part too). The journal is read back whole, in order, by a reader and by the attempt
	 * that takes the task over.
	 */
	@Test
	void writesOfSeveralEntriesCrossingTheSealingSizeKeepTheJournalWhole() {
		String key = uniqueKey("journal-batch-sealed");
		Claim first = acquire(key, "worker-1", LEASE).claim();
		String kibibyte = "\"" + "k".repeat(1024) + "\"";
		List<String> names = new ArrayList<>();
		for (int step = 1; step < SealedJournal.SEAL_BYTES / 1024; step++) {
			JournalSteps.journal(this.store, first, "below-" + step, kibibyte);
			names.add("below-" + step);
		}
		StepRecord crossing = StepRecord.started("crossing", 1, "origin", Instant.now());
		this.store.recordStep(first, crossing);
		StepRecord next = StepRecord.started("next", 1, "origin", Instant.now());
		this.store.recordSteps(first, List.of(crossing.done(kibibyte, Instant.now()), next));
		names.addAll(List.of("crossing", "next"));
		String sealing = "\"" + "s".repeat(SealedJournal.SEAL_BYTES) + "\"";
		List<StepRecord> sealed = new ArrayList<>();
		for (int step = 0; step < SealedJournal.MAX_SEALED_IN_RECORD + 2; step++) {
			sealed.add(StepRecord.found("sealed-" + step, 1, sealing, "origin", Instant.now()));
			names.add("sealed-" + step);
		}
		this.store.recordSteps(first, sealed);
		this.store.recordSteps(first, List.of(next.done(kibibyte, Instant.now()),
				StepRecord.started("unfinished", 1, "origin", Instant.now())));
		names.add("unfinished");
		this.store.release(first, "failed");

		ClaimResult.Acquired resumed = acquire(key, "worker-2", LEASE);

		assertThat(resumed.previousAttempt().lastStep()).contains("unfinished");
		for (StepJournal journal : List.of(resumed.journal(), this.store.find(key).orElseThrow().journal())) {
			assertThat(journal.steps()).extracting(StepRecord::name).containsExactlyElementsOf(names);
			assertThat(journal.steps().subList(0, names.size() - 1)).allSatisfy((step) -> {
				assertThat(step.state()).isEqualTo(StepState.DONE);
				assertThat(step.result()).isEqualTo(step.name().startsWith("sealed-") ? sealing : kibibyte);
			});
		}
	}

	/**
	 * A write of several entries whose record would be too large for the store is refused whole:
	 * none of its entries is journaled, not even those that would fit. A store that keeps it keeps
	 * every entry.
	 */
	@Test
	void aWriteOfSeveralEntriesTooLargeForTheStoreJournalsAllOrNone() {
		String key = uniqueKey("journal-batch-large");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		StepRecord small = StepRecord.started("small", 1, "origin", Instant.now());
		this.store.recordStep(claim, small);
		String huge = "\"" + "x".repeat(1100 * 1024) + "\"";
		List<StepRecord> entries = List.of(small.done("\"small\"", Instant.now()),
				StepRecord.found("huge", 1, huge, "origin", Instant.now()),
				StepRecord.started("after", 1, "origin", Instant.now()));

		try {
			this.store.recordSteps(claim, entries);
			assertThat(this.store.find(key).orElseThrow().journal().steps()).as("a store that keeps it keeps it whole")
				.containsExactlyElementsOf(entries);
		}
		catch (RecordTooLargeException ex) {
			assertThat(ex).hasMessageContaining(key);
			assertThat(this.store.find(key).orElseThrow().journal().steps()).containsExactly(small);
		}
		this.store.recordStep(claim, StepRecord.started("next", 1, "origin", Instant.now()));
		assertThat(this.store.find(key).orElseThrow().journal().find("next")).isPresent();
	}

	/**
	 * A write of several entries after a resubmit emptied the journal, naming steps of the earlier
	 * run and new ones: no entry of the earlier run comes back (a store that keeps entries apart
	 * from the record may still hold them, under the positions and names the write uses).
	 */
	@Test
	void severalEntriesWrittenAfterAResubmitBringBackNoEntryOfTheEarlierRun() {
		String key = uniqueKey("journal-batch-resubmitted");
		Claim first = acquire(key, "worker-1", LEASE).claim();
		for (int step = 1; step <= 5; step++) {
			JournalSteps.journal(this.store, first, "step-" + step, JournalSteps.RESULT);
		}
		IdempotencyRecord completed = this.store.complete(first, Completion.completed("listener", 3, "wrong output"));
		this.store.recordOperatorAction(key, completed.token(),
				new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "bob", "output was wrong", Instant.now(), 0));
		Claim rerun = acquire(key, "worker-2", LEASE).claim();
		StepRecord third = StepRecord.started("step-3", 2, "origin", Instant.now());

		this.store.recordSteps(rerun, List.of(third, StepRecord.started("fresh", 2, "origin", Instant.now()),
				StepRecord.found("step-1", 2, "\"again\"", "origin", Instant.now())));
		this.store.recordSteps(rerun, List.of(third.done("\"third\"", Instant.now()),
				StepRecord.started("step-2", 2, "origin", Instant.now())));

		assertThat(this.store.find(key).orElseThrow().journal().steps())
			.extracting(StepRecord::name, StepRecord::state, StepRecord::result)
			.containsExactly(tuple("step-3", StepState.DONE, "\"third\""), tuple("fresh", StepState.STARTED, null),
					tuple("step-1", StepState.DONE, "\"again\""), tuple("step-2", StepState.STARTED, null));
	}

	@Test
	void aZombieRacingTheHolderJournalsNothing() throws Exception {
		String key = uniqueKey("journal-race");
		Takeover takeover = takeOver(key);
		int steps = 10;
		CountDownLatch start = new CountDownLatch(1);
		Future<Integer> zombie = this.racers.submit(() -> journalSteps(takeover.zombie(), "zombie-", steps, start));
		Future<Integer> holder = this.racers.submit(() -> journalSteps(takeover.current(), "holder-", steps, start));

		start.countDown();

		assertThat(zombie.get()).as("steps the zombie journaled").isZero();
		assertThat(holder.get()).as("steps the holder journaled").isEqualTo(steps);
		assertThat(this.store.find(key).orElseThrow().journal().steps()).hasSize(steps).allSatisfy((step) -> {
			assertThat(step.name()).startsWith("holder-");
			assertThat(step.attempt()).isEqualTo(2);
		});
	}

	@Test
	void journalIsCarriedOverWhenAReleasedAttemptIsClaimedAgain() {
		String key = uniqueKey("journal-released");
		Claim failed = acquire(key, "worker-1", LEASE).claim();
		StepRecord draft = StepRecord.started("draft", 1, "origin", Instant.now());
		this.store.recordStep(failed, draft.done("\"first draft\"", Instant.now()));
		this.store.recordStep(failed, StepRecord.started("commit", 1, "origin", Instant.now()).failed(Instant.now()));
		this.store.release(failed, "IllegalStateException: git push refused");

		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);

		assertThat(next.journal().steps()).extracting(StepRecord::name, StepRecord::state, StepRecord::result)
			.containsExactly(tuple("draft", StepState.DONE, "\"first draft\""), tuple("commit", StepState.FAILED, null));
		assertThat(next.previousAttempt().lastStep()).isEmpty();
		this.store.recordStep(next.claim(), StepRecord.started("commit", 2, "origin", Instant.now()));
		assertThat(this.store.find(key).orElseThrow().journal().steps()).extracting(StepRecord::name,
				StepRecord::attempt).containsExactly(tuple("draft", 1), tuple("commit", 2));
	}

	@Test
	void journalIsCarriedOverWhenAnAbandonedClaimIsTakenOverAndNamesTheStepItDiedIn() {
		String key = uniqueKey("journal-abandoned");
		Claim dead = acquire(key, "dead-worker", SHORT_LEASE).claim();
		this.store.recordStep(dead, StepRecord.started("draft", 1, "origin", Instant.now()).done("\"draft\"", Instant.now()));
		this.store.recordStep(dead, StepRecord.started("commit", 1, "origin", Instant.now()));
		awaitLeaseEnd(dead);

		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);

		assertThat(next.previousAttempt().abandoned()).isTrue();
		assertThat(next.previousAttempt().lastStep()).contains("commit");
		assertThat(next.journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.DONE), tuple("commit", StepState.STARTED));
		assertThat(this.store.find(key).orElseThrow().journal()).isEqualTo(next.journal());
	}

	@Test
	void replayReopensADeadLetteredKeyWithItsAuditAndJournalAndTheNextClaimRunsItWithAFreshBudget() {
		String key = uniqueKey("replayed");
		IdempotencyRecord dead = finishedAfterAStep(key, Completion.deadLettered("listener", 5, "poison"));
		OperatorAction replay = new OperatorAction(OperatorAction.Kind.REPLAY, dead.nextActionNumber(
				OperatorAction.Kind.REPLAY), "alice", "parser fixed", Instant.parse("2026-11-23T10:15:30Z"), 17);

		IdempotencyRecord reopened = this.store.recordOperatorAction(key, dead.token(), replay);

		assertThat(reopened.state()).isEqualTo(RecordState.FAILED);
		assertThat(reopened.attempts()).isZero();
		assertThat(reopened.token()).isNotEqualTo(dead.token());
		assertThat(this.store.find(key).orElseThrow()).satisfies((found) -> {
			assertThat(found.audit()).containsExactly(replay);
			assertThat(found.actionOn(OperatorAction.Kind.REPLAY, 17)).contains(replay);
			assertThat(found.nextActionNumber(OperatorAction.Kind.REPLAY)).isEqualTo(2);
		});
		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);
		assertThat(next.claim().attempt()).isEqualTo(1);
		assertThat(next.previousAttempt().failure()).isEqualTo("REPLAY 1 by alice: parser fixed");
		assertThat(next.journal().find("draft")).isPresent();
		this.store.complete(next.claim(), Completion.completed("listener", 9, "done"));
		assertThat(this.store.find(key).orElseThrow().audit()).containsExactly(replay);
	}

	@Test
	void ofOperatorsActingOnTheSameReadRecordExactlyOneSucceeds() throws Exception {
		String key = uniqueKey("replay-race");
		IdempotencyRecord dead = this.store.complete(acquire(key, "worker-1", LEASE).claim(),
				Completion.deadLettered("listener", 5, "poison"));

		List<ClaimResult> results = race((i) -> () -> {
			try {
				IdempotencyRecord written = this.store.recordOperatorAction(key, dead.token(), new OperatorAction(
						OperatorAction.Kind.REPLAY, 1, "operator-" + i, "race", Instant.now(), 17));
				return ClaimResult.Acquired.of(written);
			}
			catch (RecordChangedException ex) {
				return new ClaimResult.DeadLettered(dead);
			}
		});

		assertThat(acquiredOf(results)).hasSize(1);
		assertThat(this.store.find(key).orElseThrow().audit()).hasSize(1);
	}

	@Test
	void resubmitReopensACompletedKeyWithAnEmptyJournalAndRefusesWhatItDoesNotApplyTo() {
		String key = uniqueKey("resubmitted");
		IdempotencyRecord completed = finishedAfterAStep(key, Completion.completed("listener", 3, "wrong output"));
		OperatorAction replay = new OperatorAction(OperatorAction.Kind.REPLAY, 1, "bob", "not dead", Instant.now(), 4);
		assertThatExceptionOfType(RecordChangedException.class)
			.isThrownBy(() -> this.store.recordOperatorAction(key, completed.token(), replay));
		OperatorAction resubmit = new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "bob", "output was wrong",
				Instant.now(), 0);

		this.store.recordOperatorAction(key, completed.token(), resubmit);

		assertThatExceptionOfType(RecordChangedException.class)
			.isThrownBy(() -> this.store.recordOperatorAction(key, completed.token(), resubmit));
		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);
		assertThat(next.journal().steps()).isEmpty();
		assertThatExceptionOfType(RecordChangedException.class).isThrownBy(() -> this.store.recordOperatorAction(key,
				next.claim().token(), new OperatorAction(OperatorAction.Kind.RESUBMIT, 2, "bob", "held", Instant.now(), 0)));
		assertThatExceptionOfType(RecordChangedException.class).isThrownBy(() -> this.store.recordOperatorAction(
				uniqueKey("never-claimed"), "no-token", resubmit));
	}

	/**
	 * A journal longer than a record keeps inside (60 steps, about 20 KiB: step rows, step fields,
	 * sealed parts) is carried on by the transitions that keep it (a dead-lettering completion, a
	 * replay, the claim that resumes it) and emptied by a resubmit: the resubmitted run's first
	 * step is its only one, no earlier run's entry comes back.
	 */
	@Test
	void aLongJournalIsKeptByAReplayAndEmptiedByAResubmit() {
		String key = uniqueKey("journal-long-reopened");
		Claim first = acquire(key, "worker-1", LEASE).claim();
		int steps = 60;
		for (int step = 1; step <= steps; step++) {
			JournalSteps.journal(this.store, first, "step-" + step, JournalSteps.RESULT);
		}
		IdempotencyRecord dead = this.store.complete(first, Completion.deadLettered("listener", 5, "poison"));
		this.store.recordOperatorAction(key, dead.token(),
				new OperatorAction(OperatorAction.Kind.REPLAY, 1, "bob", "fixed", Instant.now(), 4));

		ClaimResult.Acquired resumed = acquire(key, "worker-2", LEASE);
		assertThat(resumed.journal().steps()).as("the journal a replay resumes").hasSize(steps);
		IdempotencyRecord completed = this.store.complete(resumed.claim(), Completion.completed("listener", 6, "done"));
		assertThat(this.store.find(key).orElseThrow().journal().steps()).hasSize(steps);
		this.store.recordOperatorAction(key, completed.token(),
				new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "bob", "output was wrong", Instant.now(), 0));

		assertThat(this.store.find(key).orElseThrow().journal().steps()).as("the journal after a resubmit").isEmpty();
		ClaimResult.Acquired rerun = acquire(key, "worker-3", LEASE);
		assertThat(rerun.journal().steps()).isEmpty();
		JournalSteps.journal(this.store, rerun.claim(), "step-1", JournalSteps.RESULT);
		assertThat(this.store.find(key).orElseThrow().journal().steps()).extracting(StepRecord::name)
			.containsExactly("step-1");
	}

	/**
	 * A record read without its journal (what a child reads of its parent, once per child) is the
	 * record {@code find} gives, its state, run, token and audit, with an empty journal, however long
	 * the journal; a key never claimed has none.
	 */
	@Test
	void aRecordReadWithoutItsJournalIsTheRecordWithAnEmptyJournal() {
		String key = uniqueKey("without-journal");
		Claim first = acquire(key, "worker-1", LEASE).claim();
		IdempotencyRecord completed = this.store.complete(first, Completion.completed("listener", 5, "done"));
		this.store.recordOperatorAction(key, completed.token(),
				new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "bob", "again", Instant.now(), 0));
		Claim second = acquire(key, "worker-2", LEASE).claim();
		for (int step = 1; step <= 60; step++) {
			JournalSteps.journal(this.store, second, "step-" + step, JournalSteps.RESULT);
		}

		IdempotencyRecord whole = this.store.find(key).orElseThrow();
		IdempotencyRecord withoutJournal = this.store.findWithoutJournal(key).orElseThrow();
		assertThat(whole.journal().steps()).hasSize(60);
		assertThat(withoutJournal.journal().steps()).isEmpty();
		assertThat(withoutJournal).extracting(IdempotencyRecord::key, IdempotencyRecord::listener,
				IdempotencyRecord::owner, IdempotencyRecord::token, IdempotencyRecord::state,
				IdempotencyRecord::attempts, IdempotencyRecord::run, IdempotencyRecord::audit,
				IdempotencyRecord::duplicateSequences, IdempotencyRecord::resultSummary)
			.containsExactly(whole.key(), whole.listener(), whole.owner(), second.token(), RecordState.IN_PROGRESS,
					whole.attempts(), 2, whole.audit(), whole.duplicateSequences(), whole.resultSummary());
		assertThat(this.store.findWithoutJournal(uniqueKey("without-journal-never-claimed"))).isEmpty();
	}

	@Test
	void aReopenedKeyKeepsTheCopiesItSettledNotedThroughItsNextAttempt() {
		String key = uniqueKey("reopened-notes");
		IdempotencyRecord completed = this.store.complete(acquire(key, "worker-1", LEASE).claim(),
				Completion.completed("task-listener", 5, "wrong output"));
		this.store.recordDuplicate(key, 6);
		this.store.recordOperatorAction(key, completed.token(),
				new OperatorAction(OperatorAction.Kind.RESUBMIT, 1, "bob", "output was wrong", Instant.now(), 0));

		Claim next = acquire(key, "worker-2", LEASE).claim();
		this.store.complete(next, Completion.completed("task-listener", 9, "right output"));

		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.streamSequence()).isEqualTo(9);
		assertThat(record.duplicateSequences()).containsExactlyInAnyOrder(5L, 6L);
	}

	@Test
	void discardKeepsTheKeyDeadLetteredWithItsAudit() {
		String key = uniqueKey("discarded");
		IdempotencyRecord dead = this.store.complete(acquire(key, "worker-1", LEASE).claim(),
				Completion.deadLettered("listener", 5, "poison"));
		OperatorAction discard = new OperatorAction(OperatorAction.Kind.DISCARD, 1, "carol", "customer cancelled",
				Instant.now(), 8);

		this.store.recordOperatorAction(key, dead.token(), discard);

		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOfSatisfying(ClaimResult.DeadLettered.class,
				(stillDead) -> {
					assertThat(stillDead.record().resultSummary()).isEqualTo("poison");
					assertThat(stillDead.record().audit()).extracting(OperatorAction::operator, OperatorAction::reason)
						.containsExactly(tuple("carol", "customer cancelled"));
				});
	}

	@Test
	void journalIsKeptWithTheCompletionRecord() {
		String key = uniqueKey("journal-completed");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		this.store.recordStep(claim, StepRecord.started("draft", 1, "origin", Instant.now()).done("42", Instant.now()));

		this.store.complete(claim, Completion.completed("listener", 3, "done"));

		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.Completed.class);
		assertThat(this.store.find(key).orElseThrow().journal().find("draft")).hasValueSatisfying(
				(step) -> assertThat(step.result()).isEqualTo("42"));
	}

	/**
	 * A duplicate of a task with a long journal is answered without its journal (only a takeover and
	 * {@code find} read it), so it costs what a duplicate of a task without steps costs.
	 */
	@Test
	void aDuplicateOfACompletedTaskIsAnsweredWithoutItsJournal() {
		String key = uniqueKey("journal-duplicate");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		int steps = 300;
		for (int step = 1; step <= steps; step++) {
			JournalSteps.journal(this.store, claim, "step-" + step, JournalSteps.RESULT);
		}
		this.store.complete(claim, Completion.completed("listener", 3, "done"));

		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOfSatisfying(ClaimResult.Completed.class,
				(completed) -> assertThat(completed.record().journal().steps()).isEmpty());
		assertThat(this.store.find(key).orElseThrow().journal().steps()).hasSize(steps);
	}

	/**
	 * Journals a task of 300 steps (about 100 KiB of entries, more than a record keeps inside) into
	 * {@code store}, completes it, and checks with {@code journalEntriesRead} (what the store's server
	 * was asked for, counted by the subclass on the server or the wire) that a duplicate's claim reads
	 * none of its journal entries kept outside the record, while {@code find} reads them. The answer
	 * alone cannot show it: {@link ClaimResult.Completed} drops the journal whatever was read.
	 * @param store a store of the subclass's kind
	 * @param journalEntriesRead the reads of journal entries kept outside records so far
	 */
	protected void assertADuplicateClaimReadsNoJournalEntry(IdempotencyStore store, LongSupplier journalEntriesRead) {
		String key = uniqueKey("journal-duplicate-counted");
		Claim claim = JournalSteps.acquire(store, key, "worker-1", LEASE);
		int steps = 300;
		for (int step = 1; step <= steps; step++) {
			JournalSteps.journal(store, claim, "step-" + step, JournalSteps.RESULT);
		}
		store.complete(claim, Completion.completed("listener", 3, "done"));

		long beforeDuplicate = journalEntriesRead.getAsLong();
		assertThat(store.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.Completed.class);
		long byDuplicate = journalEntriesRead.getAsLong() - beforeDuplicate;
		assertThat(store.find(key).orElseThrow().journal().steps()).hasSize(steps);
		long byFind = journalEntriesRead.getAsLong() - beforeDuplicate - byDuplicate;

		assertThat(byFind).as("journal reads counted for find (the count sees them)").isPositive();
		assertThat(byDuplicate).as("journal reads counted for the duplicate's claim").isZero();
	}

	@Test
	void unicodeStepNamesAndResultsRoundTrip() {
		String key = uniqueKey("journal-unicode");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		List<String> names = List.of("草稿 ✍️", "publish:agents.devops.tasks.deploy", "with \"quotes\" and \\ back\\slash",
				"/path/like", "ключ-ü-🚀", "tab\tand\nnewline", "");
		for (String name : names) {
			this.store.recordStep(claim,
					StepRecord.started(name, 1, "origin", Instant.now()).done("\"résumé ✓ " + name.replace("\"", "'") + "\"", Instant.now()));
		}

		StepJournal journal = this.store.find(key).orElseThrow().journal();

		assertThat(journal.steps()).extracting(StepRecord::name).containsExactlyElementsOf(names);
		for (String name : names) {
			assertThat(journal.find(name).orElseThrow().result())
				.isEqualTo("\"résumé ✓ " + name.replace("\"", "'") + "\"");
		}
	}

	@Test
	void aJournalTooLargeForTheStoreIsRefusedWholeNeverReportedAsAnOutage() {
		String key = uniqueKey("journal-large");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		this.store.recordStep(claim, StepRecord.started("small", 1, "origin", Instant.now()));
		String huge = "\"" + "x".repeat(1100 * 1024) + "\"";

		try {
			this.store.recordStep(claim, StepRecord.started("huge", 1, "origin", Instant.now()).done(huge, Instant.now()));
			assertThat(this.store.find(key).orElseThrow().journal().find("huge").orElseThrow().result())
				.as("a store that keeps it keeps it whole")
				.isEqualTo(huge);
		}
		catch (RecordTooLargeException ex) {
			assertThat(ex).hasMessageContaining(key);
			assertThat(this.store.find(key).orElseThrow().journal().steps()).extracting(StepRecord::name)
				.containsExactly("small");
		}
		this.store.recordStep(claim, StepRecord.started("after", 1, "origin", Instant.now()));
		assertThat(this.store.find(key).orElseThrow().journal().find("after")).isPresent();
	}

	/**
	 * A long journal and a large result, as an agent loop journals them: every step read back in the
	 * order it first started, by a reader and by the attempt that takes the task over, and a result
	 * of 1 MiB kept whole. {@code -Dcontract.long-journal-steps} sets the length (2,000 by default,
	 * 10,000 in the benchmark's probe).
	 */
	@Test
	void aLongJournalIsReadBackWholeInOrderAndAResultOfOneMebibyteWhole() {
		String key = uniqueKey("journal-long");
		Claim first = acquire(key, "worker-1", LEASE).claim();
		int steps = Integer.getInteger("contract.long-journal-steps", 2_000);
		String result = "\"" + "r".repeat(176) + "\"";
		for (int step = 0; step < steps; step++) {
			StepRecord started = StepRecord.started("step-" + step, 1, "origin", Instant.now());
			this.store.recordStep(first, started);
			this.store.recordStep(first, started.done(result, Instant.now()));
		}
		String large = "\"" + "é".repeat(512 * 1024 - 1) + "\"";
		this.store.recordStep(first, StepRecord.started("large", 1, "origin", Instant.now()).done(large, Instant.now()));
		this.store.recordStep(first, StepRecord.started("unfinished", 1, "origin", Instant.now()));
		this.store.release(first, "failed");

		ClaimResult.Acquired next = acquire(key, "worker-2", LEASE);

		assertThat(next.previousAttempt().lastStep()).contains("unfinished");
		for (StepJournal journal : List.of(next.journal(), this.store.find(key).orElseThrow().journal())) {
			assertThat(journal.steps()).hasSize(steps + 2);
			for (int step = 0; step < steps; step++) {
				StepRecord entry = journal.steps().get(step);
				assertThat(entry.name()).isEqualTo("step-" + step);
				assertThat(entry.state()).isEqualTo(StepState.DONE);
				assertThat(entry.result()).isEqualTo(result);
			}
			assertThat(journal.steps().get(steps).result()).isEqualTo(large);
			assertThat(journal.steps().get(steps + 1).state()).isEqualTo(StepState.STARTED);
		}
	}

	@Test
	void duplicateCopiesOfACompletedKeyAreNotedOnItsRecordOnceEachOldestFirst() {
		String key = uniqueKey("duplicates");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		IdempotencyRecord completed = this.store.complete(claim, Completion.completed("task-listener", 7, "done"));

		this.store.recordDuplicate(key, 9);
		this.store.recordDuplicate(key, 8);
		this.store.recordDuplicate(key, 9);

		IdempotencyRecord record = this.store.find(key).orElseThrow();
		assertThat(record.duplicateSequences()).containsExactly(9L, 8L);
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.streamSequence()).isEqualTo(7);
		assertThat(record.token()).isEqualTo(claim.token());
		assertThat(record.expiresAt()).isCloseTo(completed.expiresAt(), within(CLOCK_TOLERANCE.toMillis(), ChronoUnit.MILLIS));
		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.Completed.class);
	}

	@Test
	void duplicateCopiesOfADeadLetteredKeyAreNoted() {
		String key = uniqueKey("dead-lettered-duplicates");
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		this.store.complete(claim, Completion.deadLettered("task-listener", 5, "poison"));

		this.store.recordDuplicate(key, 6);

		assertThat(this.store.find(key).orElseThrow().duplicateSequences()).containsExactly(6L);
		assertThat(this.store.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.DeadLettered.class);
	}

	@Test
	void onlyTheLatestDuplicateCopiesAreKeptSoAFloodCannotGrowTheRecord() {
		String key = uniqueKey("duplicate-flood");
		this.store.complete(acquire(key, "worker-1", LEASE).claim(), Completion.completed("task-listener", 1, null));
		int copies = IdempotencyStore.DUPLICATE_SEQUENCES_KEPT + 5;

		for (long sequence = 2; sequence < 2 + copies; sequence++) {
			this.store.recordDuplicate(key, sequence);
		}

		List<Long> kept = this.store.find(key).orElseThrow().duplicateSequences();
		assertThat(kept).hasSize(IdempotencyStore.DUPLICATE_SEQUENCES_KEPT)
			.startsWith(7L)
			.endsWith((long) 1 + copies);
	}

	@Test
	void racingDuplicateNotesAreAllKept() throws Exception {
		String key = uniqueKey("racing-duplicates");
		this.store.complete(acquire(key, "worker-1", LEASE).claim(), Completion.completed("task-listener", 1, null));
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> notes = new ArrayList<>();
		for (int i = 0; i < NOTE_RACERS; i++) {
			long sequence = 100 + i;
			notes.add(this.racers.submit(() -> {
				start.await();
				this.store.recordDuplicate(key, sequence);
				return null;
			}));
		}
		start.countDown();
		for (Future<?> note : notes) {
			note.get();
		}

		assertThat(this.store.find(key).orElseThrow().duplicateSequences()).hasSize(NOTE_RACERS)
			.allSatisfy((sequence) -> assertThat(sequence).isBetween(100L, 100L + NOTE_RACERS - 1));
	}

	@Test
	void aDuplicateOfAKeyWithoutAFinalRecordIsNotNoted() {
		String key = uniqueKey("duplicate-in-progress");
		String unknown = uniqueKey("duplicate-unknown");
		Claim claim = acquire(key, "worker-1", LEASE).claim();

		this.store.recordDuplicate(key, 3);
		this.store.recordDuplicate(unknown, 4);

		assertThat(this.store.find(unknown)).isEmpty();
		IdempotencyRecord held = this.store.find(key).orElseThrow();
		assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(held.duplicateSequences()).isEmpty();
		assertThat(this.store.complete(claim, Completion.completed("task-listener", 2, null)).duplicateSequences())
			.isEmpty();
	}

	/**
	 * Claims a key that must be free.
	 * @param key the key
	 * @param owner the claimant
	 * @param lease the lease
	 * @return the acquired claim
	 */
	protected ClaimResult.Acquired acquire(String key, String owner, Duration lease) {
		ClaimResult result = this.store.tryClaim(key, owner, lease);
		assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
		return (ClaimResult.Acquired) result;
	}

	/** Claims a key for worker-1 with a short lease, lets it lapse, and has worker-2 take it over. */
	protected Takeover takeOver(String key) {
		Claim zombie = acquire(key, "worker-1", SHORT_LEASE).claim();
		awaitLeaseEnd(zombie);
		ClaimResult.Acquired current = acquire(key, "worker-2", LEASE);
		assertThat(current.previousAttempt().abandoned()).isTrue();
		return new Takeover(zombie, current.claim());
	}

	/** Journals {@code steps} steps once {@code start} opens; returns how many the store accepted. */
	private int journalSteps(Claim claim, String prefix, int steps, CountDownLatch start) throws InterruptedException {
		start.await();
		int journaled = 0;
		for (int step = 0; step < steps; step++) {
			try {
				this.store.recordStep(claim, StepRecord.started(prefix + step, claim.attempt(), "origin", Instant.now()));
				journaled++;
			}
			catch (ClaimLostException ex) {
				// refused, as a zombie's write must be
			}
		}
		return journaled;
	}

	/** Claims a key, journals a DONE step {@code draft} and finishes the attempt with {@code completion}. */
	private IdempotencyRecord finishedAfterAStep(String key, Completion completion) {
		Claim claim = acquire(key, "worker-1", LEASE).claim();
		this.store.recordStep(claim, StepRecord.started("draft", 1, "origin", Instant.now()).done("\"draft\"", Instant.now()));
		return this.store.complete(claim, completion);
	}

	private static void awaitLeaseEnd(Claim claim) {
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
			.until(() -> Instant.now().isAfter(claim.leaseUntil().plusMillis(50)));
	}

	private List<ClaimResult> race(IntFunction<Callable<ClaimResult>> claimant) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<ClaimResult>> futures = new ArrayList<>();
		for (int i = 0; i < this.racerCount; i++) {
			Callable<ClaimResult> call = claimant.apply(i);
			futures.add(this.racers.submit(() -> {
				start.await();
				return call.call();
			}));
		}
		start.countDown();
		List<ClaimResult> results = new ArrayList<>();
		for (Future<ClaimResult> future : futures) {
			results.add(future.get());
		}
		return results;
	}

	private static List<ClaimResult.Acquired> acquiredOf(List<ClaimResult> results) {
		return results.stream()
			.filter(ClaimResult.Acquired.class::isInstance)
			.map(ClaimResult.Acquired.class::cast)
			.toList();
	}

	/**
	 * A key claimed twice: by a zombie whose lease lapsed, then by the current holder.
	 *
	 * @param zombie the first claim
	 * @param current the claim that took it over
	 */
	protected record Takeover(Claim zombie, Claim current) {
	}

}
