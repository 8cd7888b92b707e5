package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Retries one of the pipeline's store writes while the store is unavailable, with exponential
 * backoff from 100 ms up to 5 s, until a deadline. An interrupt while it waits ends the retries
 * (the flag is restored). Every other exception ends them at once.
 */
final class StoreWriteRetry {

	private static final Duration FIRST_RETRY = Duration.ofMillis(100);

	private static final Duration LONGEST_RETRY = Duration.ofSeconds(5);

	private StoreWriteRetry() {
	}

	/**
	 * Runs a write, retrying it while the store is unavailable.
	 * @param <T> the write's result
	 * @param write the write
	 * @param timeout how long to keep retrying
	 * @param beforeRetry told the failure and the wait before each retry (to log it)
	 * @return the write's result
	 * @throws StoreUnavailableException the last failure, once the timeout passed or the wait was
	 * interrupted
	 */
	static <T> T write(Supplier<T> write, Duration timeout, BiConsumer<StoreUnavailableException, Duration> beforeRetry) {
		long deadline = System.nanoTime() + timeout.toNanos();
		return writeUntil(write, () -> System.nanoTime() > deadline, beforeRetry);
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
				if (!Backoff.sleep(wait)) {
					throw ex;
				}
			}
		}
	}

}
