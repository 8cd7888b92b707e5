package dev.exactlyonce.faults;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Polls a condition until it holds.
 */
final class Waits {

	private static final long POLL_MILLIS = 50;

	private Waits() {
	}

	/**
	 * Waits until {@code condition} holds.
	 * @param what what is awaited, for the failure message
	 * @param timeout the longest wait
	 * @param condition the condition
	 * @throws IllegalStateException when it does not hold in time
	 */
	static void until(String what, Duration timeout, BooleanSupplier condition) {
		if (!within(timeout, condition)) {
			throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
		}
	}

	/**
	 * Waits until {@code condition} holds or the time is up.
	 * @param timeout the longest wait
	 * @param condition the condition
	 * @return whether it held
	 */
	static boolean within(Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			if (condition.getAsBoolean()) {
				return true;
			}
			if (System.nanoTime() > deadline) {
				return false;
			}
			pause(POLL_MILLIS);
		}
	}

	/** Sleeps a poll interval; an interrupt becomes an unchecked failure of the run. */
	static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
