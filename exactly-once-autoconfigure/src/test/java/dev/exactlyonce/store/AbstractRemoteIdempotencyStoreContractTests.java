package dev.exactlyonce.store;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.test.ServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The contract of a store behind a server: besides everything in
 * {@link AbstractIdempotencyStoreContractTests}, an unreachable server makes every operation fail
 * with {@link StoreUnavailableException} in bounded time, never with a false answer, and the
 * store works again once the server is back.
 */
public abstract class AbstractRemoteIdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	/** The longest any operation may take to report an unreachable server. */
	private static final Duration GIVE_UP_WITHIN = Duration.ofSeconds(30);

	/**
	 * The server behind the store, which the outage test kills (SIGKILL) and starts again.
	 * @return the server process
	 */
	protected abstract ServerProcess server();

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
