package dev.exactlyonce.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.test.TcpProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The contract of a store behind a server: besides everything in
 * {@link AbstractIdempotencyStoreContractTests}, an unreachable server makes every operation fail
 * with {@link StoreUnavailableException} in bounded time, never with a false answer, and the
 * store works again once the server is back. A write the server applied but answered after the
 * client's timeout (its replies held back by a {@link TcpProxy}) is recognised as the caller's
 * own: never reported as lost, never seen as someone else's claim.
 */
public abstract class AbstractRemoteIdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	/** How long the client of {@link #createStoreBehind} waits for each answer. */
	protected static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration LEASE = Duration.ofSeconds(30);

	/** The longest any operation may take to report an unreachable server. */
	private static final Duration GIVE_UP_WITHIN = Duration.ofSeconds(30);

	private TcpProxy proxy;

	private IdempotencyStore slowAnswers;

	private final ExecutorService caller = Executors.newSingleThreadExecutor();

	/**
	 * The server behind the store, which the outage test kills (SIGKILL) and starts again.
	 * @return the server process
	 */
	protected abstract ServerProcess server();

	/**
	 * Creates a store whose client reaches the server through {@code proxy} and gives up on an
	 * answer after {@link #CLIENT_TIMEOUT}; its records live {@link #LONG_TTL}.
	 * @param proxy the proxy in front of {@link #server()}
	 * @return the store
	 * @throws Exception when it cannot be created
	 */
	protected abstract IdempotencyStore createStoreBehind(TcpProxy proxy) throws Exception;

	@BeforeAll
	void setUpStoreBehindProxy() throws Exception {
		this.proxy = new TcpProxy(server().port());
		this.slowAnswers = createStoreBehind(this.proxy);
	}

	@AfterAll
	void tearDownProxy() {
		this.caller.shutdownNow();
		this.proxy.close();
	}

	@Test
	void claimAnsweredAfterTheClientTimeoutIsAcquiredAsTheFirstAttempt() throws Exception {
		String key = uniqueKey("late-claim");

		ClaimResult result = answeredLate(() -> this.slowAnswers.tryClaim(key, "worker-1", LEASE));

		assertThat(result).isInstanceOfSatisfying(ClaimResult.Acquired.class, (acquired) -> {
			assertThat(acquired.claim().owner()).isEqualTo("worker-1");
			assertThat(acquired.claim().attempt()).isEqualTo(1);
			assertThat(acquired.previousAttempt()).isNull();
			assertThat(this.slowAnswers.find(key).orElseThrow().token()).isEqualTo(acquired.claim().token());
		});
		assertThat(this.slowAnswers.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);
	}

	@Test
	void claimWhoseAnswerAndReadBackWereLostIsTheClaimantsOwnOnItsNextClaim() {
		String key = uniqueKey("lost-claim-answer");
		this.proxy.holdReplies();
		try {
			assertThatExceptionOfType(StoreUnavailableException.class)
				.isThrownBy(() -> this.slowAnswers.tryClaim(key, "worker-1", LEASE));
		}
		finally {
			this.proxy.releaseReplies();
		}
		await().atMost(Duration.ofSeconds(10))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> this.slowAnswers.find(key).isPresent());
		assertThat(this.slowAnswers.find(key).orElseThrow().owner()).as("the server applied the claim")
			.isEqualTo("worker-1");

		assertThat(this.slowAnswers.tryClaim(key, "worker-2", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);
		ClaimResult again = this.slowAnswers.tryClaim(key, "worker-1", LEASE);

		assertThat(again).isInstanceOfSatisfying(ClaimResult.Acquired.class, (acquired) -> {
			assertThat(acquired.claim().attempt()).isEqualTo(1);
			assertThat(acquired.previousAttempt()).isNull();
			assertThat(this.slowAnswers.find(key).orElseThrow().token()).isEqualTo(acquired.claim().token());
		});
	}

	@Test
	void reclaimWhoseAnswersWereLostKeepsThePreviousAttemptOnTheClaimantsNextClaim() {
		String key = uniqueKey("lost-reclaim-answer");
		Claim failed = ((ClaimResult.Acquired) this.slowAnswers.tryClaim(key, "worker-1", LEASE)).claim();
		this.slowAnswers.release(failed, "IllegalStateException: model timed out");
		this.proxy.holdReplies();
		try {
			assertThatExceptionOfType(StoreUnavailableException.class)
				.isThrownBy(() -> this.slowAnswers.tryClaim(key, "worker-2", LEASE));
		}
		finally {
			this.proxy.releaseReplies();
		}

		ClaimResult again = await().atMost(Duration.ofSeconds(10))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> this.slowAnswers.tryClaim(key, "worker-2", LEASE), (result) -> result != null);

		assertThat(again).isInstanceOfSatisfying(ClaimResult.Acquired.class, (acquired) -> {
			assertThat(acquired.claim().attempt()).isEqualTo(2);
			assertThat(acquired.previousAttempt()).isNotNull();
			assertThat(acquired.previousAttempt().owner()).isEqualTo("worker-1");
			assertThat(acquired.previousAttempt().state()).isEqualTo(RecordState.FAILED);
			assertThat(acquired.previousAttempt().failure()).isEqualTo("IllegalStateException: model timed out");
		});
	}

	@Test
	void completionRetriedAfterItsAnswerWasLostFindsItsOwnRecord() {
		String key = uniqueKey("lost-complete-answer");
		Claim claim = ((ClaimResult.Acquired) this.slowAnswers.tryClaim(key, "worker-1", LEASE)).claim();
		Completion completion = Completion.completed("listener", 12, "posted");
		this.proxy.holdReplies();
		try {
			assertThatExceptionOfType(StoreUnavailableException.class)
				.isThrownBy(() -> this.slowAnswers.complete(claim, completion));
		}
		finally {
			this.proxy.releaseReplies();
		}

		IdempotencyRecord record = await().atMost(Duration.ofSeconds(10))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> this.slowAnswers.complete(claim, completion), (written) -> written != null);

		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.token()).isEqualTo(claim.token());
		assertThat(record.streamSequence()).isEqualTo(12);
	}

	@Test
	void releaseRetriedAfterItsAnswerWasLostFindsItsOwnRelease() {
		String key = uniqueKey("lost-release-answer");
		Claim claim = ((ClaimResult.Acquired) this.slowAnswers.tryClaim(key, "worker-1", LEASE)).claim();
		this.proxy.holdReplies();
		try {
			assertThatExceptionOfType(StoreUnavailableException.class)
				.isThrownBy(() -> this.slowAnswers.release(claim, "failed"));
		}
		finally {
			this.proxy.releaseReplies();
		}

		await().atMost(Duration.ofSeconds(10)).ignoreException(StoreUnavailableException.class).until(() -> {
			this.slowAnswers.release(claim, "failed");
			return true;
		});

		assertThat(this.slowAnswers.find(key).orElseThrow().state()).isEqualTo(RecordState.FAILED);
	}

	/**
	 * Runs an operation while the server's replies are held back, and lets them through once the
	 * client gave up waiting for its write and asked something else (the read-back): the write is
	 * applied, its answer arrives after the client's timeout. Never before the timeout: a request of
	 * the pool's own (a validation, another connection) may come earlier, and letting the write's
	 * answer through then would test a timely answer instead.
	 */
	private <T> T answeredLate(Supplier<T> operation) throws Exception {
		this.proxy.holdReplies();
		long started = System.nanoTime();
		Future<T> result;
		try {
			result = this.caller.submit(operation::get);
			long gaveUp = started + CLIENT_TIMEOUT.toNanos() * 4 / 5;
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> result.isDone() || (System.nanoTime() - started >= CLIENT_TIMEOUT.toNanos()
						&& this.proxy.requestsWhileHeld().stream().anyMatch((sent) -> sent - gaveUp > 0)));
		}
		finally {
			this.proxy.releaseReplies();
		}
		T value = result.get(30, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the answer came after the client timeout")
			.isGreaterThanOrEqualTo(CLIENT_TIMEOUT);
		return value;
	}

	@Test
	void unreachableStoreFailsWithATypedExceptionAndRecoversWhenItIsBack() {
		String completedKey = uniqueKey("outage-completed");
		String heldKey = uniqueKey("outage-held");
		Claim completed = acquire(completedKey, "worker-1", LEASE).claim();
		store().complete(completed, Completion.completed("listener", 3, "done"));
		Claim held = acquire(heldKey, "worker-1", LEASE).claim();
		server().kill();
		try {
			assertUnavailable(() -> store().tryClaim(completedKey, "worker-2", LEASE));
			assertUnavailable(() -> store().tryClaim(uniqueKey("outage-fresh"), "worker-2", LEASE));
			assertUnavailable(() -> store().find(completedKey));
			assertUnavailable(() -> store().renew(held, LEASE));
			assertUnavailable(() -> store().complete(held, Completion.completed("listener", 4, "done")));
			assertUnavailable(() -> store().release(held, "failed"));
		}
		finally {
			server().start();
		}
		String afterOutage = uniqueKey("after-outage");
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(500))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> store().tryClaim(afterOutage, "worker-3", LEASE) instanceof ClaimResult.Acquired);
	}

	private static void assertUnavailable(Runnable operation) {
		Instant start = Instant.now();
		assertTimeoutPreemptively(GIVE_UP_WITHIN,
				() -> assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(operation::run));
		assertThat(Duration.between(start, Instant.now())).isLessThan(GIVE_UP_WITHIN);
	}

}
