package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Instances whose clocks disagree share one store on one real server: lease expiry must be decided
 * on the store's clock, so an instance whose clock runs far ahead never takes over a live claim,
 * and an abandoned claim is taken over once its lease ran out on the store's clock, whichever
 * instance's clock is off. Run against each store whose lease decisions take a {@link Clock}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractSkewedClockStoreTests {

	/** Long enough for a claim and a competing claim on a busy machine, which must see it live. */
	private static final Duration LEASE = Duration.ofSeconds(4);

	/** Far more than the lease. */
	private static final Duration SKEW = Duration.ofMinutes(10);

	private final Clock onTime = Clock.systemUTC();

	private final Clock ahead = Clock.offset(this.onTime, SKEW);

	private final Clock behind = Clock.offset(this.onTime, SKEW.negated());

	/**
	 * Starts the server the stores share.
	 * @throws Exception when it cannot start
	 */
	protected abstract void startInfrastructure() throws Exception;

	/**
	 * Stops what {@link #startInfrastructure()} started.
	 * @throws Exception when it cannot stop
	 */
	protected abstract void stopInfrastructure() throws Exception;

	/**
	 * Creates a store instance, as another application instance would, on the same records (bucket,
	 * collection) as every other instance this test creates.
	 * @param clock the instance's own clock
	 * @return the store
	 * @throws Exception when it cannot be created
	 */
	protected abstract IdempotencyStore createStore(Clock clock) throws Exception;

	@BeforeAll
	void start() throws Exception {
		startInfrastructure();
	}

	@AfterAll
	void stop() throws Exception {
		stopInfrastructure();
	}

	@Test
	void instanceAheadDoesNotTakeOverALiveRenewedClaim() throws Exception {
		IdempotencyStore holder = createStore(this.onTime);
		IdempotencyStore aheadInstance = createStore(this.ahead);
		String key = uniqueKey("ahead-live");
		Claim claim = acquire(holder, key, "holder");

		assertThat(aheadInstance.tryClaim(key, "ahead", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);
		Claim renewed = holder.renew(claim, LEASE);
		ClaimResult again = aheadInstance.tryClaim(key, "ahead", LEASE);

		assertThat(again).isInstanceOfSatisfying(ClaimResult.HeldElsewhere.class, (held) -> {
			assertThat(held.owner()).isEqualTo("holder");
			assertLeaseEndOnTheClockAhead(held.leaseUntil());
		});
		IdempotencyRecord completed = holder.complete(renewed, Completion.completed("skew", 1, null));
		assertThat(completed.token()).isEqualTo(claim.token());
	}

	@Test
	void instanceAheadReadsALiveClaimAsLiveOnItsOwnClock() throws Exception {
		IdempotencyStore holder = createStore(this.onTime);
		IdempotencyStore aheadInstance = createStore(this.ahead);
		String key = uniqueKey("ahead-find");
		acquire(holder, key, "holder");

		IdempotencyRecord found = aheadInstance.find(key).orElseThrow();

		assertThat(found.isLiveClaim(this.ahead.instant())).isTrue();
		assertLeaseEndOnTheClockAhead(found.leaseUntil());
	}

	@Test
	void claimOfAnInstanceBehindIsNotTakenOverWhileItsLeaseRuns() throws Exception {
		IdempotencyStore holder = createStore(this.behind);
		IdempotencyStore onTimeInstance = createStore(this.onTime);
		String key = uniqueKey("behind-live");
		Claim claim = acquire(holder, key, "holder");

		assertThat(onTimeInstance.tryClaim(key, "on-time", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);
		holder.renew(claim, LEASE);
		assertThat(onTimeInstance.tryClaim(key, "on-time", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);
	}

	@Test
	void instanceBehindTakesOverAnAbandonedClaimOnceItsLeaseRanOut() throws Exception {
		assertAbandonedClaimIsTakenOverAfterItsLease(createStore(this.onTime), createStore(this.behind));
	}

	@Test
	void abandonedClaimOfAnInstanceAheadIsTakenOverOnceItsLeaseRanOut() throws Exception {
		assertAbandonedClaimIsTakenOverAfterItsLease(createStore(this.ahead), createStore(this.onTime));
	}

	private static void assertAbandonedClaimIsTakenOverAfterItsLease(IdempotencyStore holder,
			IdempotencyStore successor) {
		String key = uniqueKey("abandoned");
		long claimSent = System.nanoTime();
		acquire(holder, key, "holder");
		assertThat(successor.tryClaim(key, "successor", LEASE)).isInstanceOf(ClaimResult.HeldElsewhere.class);

		ClaimResult takeover = await().atMost(LEASE.plusSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> successor.tryClaim(key, "successor", LEASE), ClaimResult.Acquired.class::isInstance);

		assertThat(Duration.ofNanos(System.nanoTime() - claimSent)).isGreaterThanOrEqualTo(LEASE);
		assertThat(((ClaimResult.Acquired) takeover).previousAttempt().abandoned()).isTrue();
	}

	/** A live lease's end as the instance whose clock is ahead must see it: within a lease of its now. */
	private void assertLeaseEndOnTheClockAhead(Instant leaseUntil) {
		Instant now = this.ahead.instant();
		assertThat(leaseUntil).as("the holder's lease end on the clock of the instance ahead")
			.isBetween(now, now.plus(LEASE).plusSeconds(1));
	}

	private static Claim acquire(IdempotencyStore store, String key, String owner) {
		ClaimResult result = store.tryClaim(key, owner, LEASE);
		assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
		return ((ClaimResult.Acquired) result).claim();
	}

	private static String uniqueKey(String name) {
		return "skew:" + name + ":" + UUID.randomUUID() + ":" + Instant.now().toEpochMilli();
	}

}
