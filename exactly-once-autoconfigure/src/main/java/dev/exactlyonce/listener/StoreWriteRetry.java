package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Retries one of the pipeline's store writes while the store is unavailable, with exponential
 * backoff from 100 ms up to 5 s, until its caller gives up. An interrupt while it waits ends the retries
 * (the flag is restored). Every other exception ends them at once.
 */
final class StoreWriteRetry {

	private static final Duration FIRST_RETRY = Duration.ofMillis(100);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(5);

	private static final Duration GIVE_UP_CHECK = Duration.ofMillis(100);

	private StoreWriteRetry() {
	}

	/**
	 * Runs a write, retrying it while the store is unavailable until {@code givenUp} says to stop.
	 * @param <T> the write's result
	 * @param write the write
	 * @param givenUp asked after each failure whether to stop retrying
	 * @param beforeRetry told the failure and the wait before each retry (to log it)
	 * @return the write's result
	 * @throws StoreUnavailableException the last failure, once given up or the wait was interrupted
	 */
	static <T> T writeUntil(Supplier<T> write, BooleanSupplier givenUp,
			BiConsumer<StoreUnavailableException, Duration> beforeRetry) {
		Backoff backoff = new Backoff(FIRST_RETRY, LONGEST_RETRY);
		while (true) {
			try {
				return write.get();
			}
			catch (StoreUnavailableException ex) {
				if (givenUp.getAsBoolean()) {
					throw ex;
				}
				Duration wait = backoff.next();
				beforeRetry.accept(ex, wait);
				if (!sleepUnlessGivenUp(wait, givenUp)) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Waits before a retry, in slices, so that giving up (a listener that stopped) cuts the wait
	 * short: the write is then tried a last time at once.
	 * @return {@code false} when interrupted
	 */
	private static boolean sleepUnlessGivenUp(Duration wait, BooleanSupplier givenUp) {
		long end = System.nanoTime() + wait.toNanos();
		for (long left = wait.toNanos(); left > 0 && !givenUp.getAsBoolean(); left = end - System.nanoTime()) {
			if (!Backoff.sleep(Duration.ofNanos(Math.min(left, GIVE_UP_CHECK.toNanos())))) {
				return false;
			}
		}
		return true;
	}

}
