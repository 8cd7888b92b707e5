package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.function.IntSupplier;

/** Waits for a benchmark's count to reach its target. */
final class Counts {

	private Counts() {
	}

	/**
	 * Polls a count every 5 ms until it reaches the target.
	 * @param what what is counted, for the failure
	 * @param count the count
	 * @param target the count to reach
	 * @param patience how long to wait at most
	 * @throws IllegalStateException when the count did not reach the target in time
	 */
	static void await(String what, IntSupplier count, int target, Duration patience) throws InterruptedException {
		long deadline = System.nanoTime() + patience.toNanos();
		while (count.getAsInt() < target) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(what + ": " + count.getAsInt() + " of " + target + " after " + patience);
			}
			Thread.sleep(5);
		}
	}

}
