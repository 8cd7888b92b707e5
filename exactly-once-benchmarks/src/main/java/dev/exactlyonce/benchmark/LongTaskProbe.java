package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StepRecord;

/**
 * How far one task's step journal goes on a store: after a warm-up task of 200 steps, journals up
 * to a number of steps (each its STARTED and DONE) in one claimed task and reports the step latency
 * over the first, the middle and the last 100 steps journaled, the first step the store refused
 * and how long reading the whole journal back takes; then whether one step with a 1 MiB result can
 * be journaled and read back; then the p50 of a duplicate's claim (of a completed task) without steps
 * and of the long task once completed.
 */
final class LongTaskProbe {

	private static final Duration LEASE = Duration.ofMinutes(30);

	private static final int WINDOW = 100;

	private static final int ONE_MIB = 1024 * 1024;

	private static final int DUPLICATE_CLAIMS = 50;

	private final IdempotencyStore store;

	private final int steps;

	private final String result;

	LongTaskProbe(IdempotencyStore store, int steps, String result) {
		this.store = store;
		this.steps = steps;
		this.result = result;
	}

	/** Prints the table header {@link #run} prints rows of. */
	static void printHeader(int steps, int resultBytes) {
		System.out.printf(Locale.ROOT, "%nOne task of up to %d steps (STARTED + DONE, %d-byte result each); p50 ms "
				+ "per step over the first %d steps journaled, the %d around the middle and the last %d; then one "
				+ "step with a 1 MiB result; then the p50 ms of %d duplicate claims of a completed task without steps "
				+ "and of the long task completed%n%n", steps, resultBytes, WINDOW, WINDOW, WINDOW, DUPLICATE_CLAIMS);
		System.out.println("| store | steps journaled | p50 first | p50 middle | p50 last | last / first | stopped by "
				+ "| whole journal read | 1 MiB result | duplicate p50, 0 steps | duplicate p50, long task |");
		System.out.println("|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|");
	}

	/** Runs the probe and prints its row. */
	void run(String label) {
		Claim warmUp = claim("benchmark:warm-up");
		for (int step = 1; step <= WINDOW * 2; step++) {
			journal(warmUp, "step-" + step, this.result);
		}
		Claim claim = claim("benchmark:long-task");
		long[] nanos = new long[this.steps];
		int journaled = 0;
		String stoppedBy = "-";
		for (int step = 1; step <= this.steps; step++) {
			long start = System.nanoTime();
			try {
				journal(claim, "step-" + step, this.result);
			}
			catch (RuntimeException ex) {
				stoppedBy = "step " + step + ": " + describe(ex);
				break;
			}
			nanos[journaled++] = System.nanoTime() - start;
		}
		double first = median(nanos, 0);
		double last = median(nanos, Math.max(0, journaled - WINDOW));
		String wholeJournalRead = wholeJournalRead(claim.key(), journaled);
		String largeResult = largeResult();
		Claim withoutSteps = claim("benchmark:no-steps");
		System.out.printf(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %.2f | %s | %s | %s | %.3f | %.3f |%n", label,
				journaled, first, median(nanos, Math.max(0, journaled / 2 - WINDOW / 2)), last, last / first, stoppedBy,
				wholeJournalRead, largeResult, duplicateClaim(withoutSteps), duplicateClaim(claim));
	}

	/** Completes a claim, then the p50 of {@value #DUPLICATE_CLAIMS} claims of its key, in ms. */
	private double duplicateClaim(Claim claim) {
		this.store.complete(claim, Completion.completed("benchmark", 1, "done"));
		LatencyRecorder claims = new LatencyRecorder(DUPLICATE_CLAIMS);
		for (int i = 0; i < DUPLICATE_CLAIMS; i++) {
			long start = System.nanoTime();
			if (!(this.store.tryClaim(claim.key(), "duplicate", LEASE) instanceof ClaimResult.Completed)) {
				throw new IllegalStateException("Completed key " + claim.key() + " was not answered as completed");
			}
			claims.recordNanos(System.nanoTime() - start);
		}
		return claims.percentileMillis(50);
	}

	/** How long reading the task's whole journal back takes (what a resumed attempt reads), in ms. */
	private String wholeJournalRead(String key, int journaled) {
		long start = System.nanoTime();
		int read = this.store.find(key).orElseThrow().journal().steps().size();
		double millis = (System.nanoTime() - start) / 1e6;
		if (read != journaled) {
			throw new IllegalStateException(read + " steps read back, " + journaled + " journaled");
		}
		return String.format(Locale.ROOT, "%.1f ms", millis);
	}

	/** The median of up to {@value #WINDOW} step latencies from {@code from}, in ms. */
	private static double median(long[] nanos, int from) {
		LatencyRecorder window = new LatencyRecorder(WINDOW);
		for (int i = from; i < Math.min(nanos.length, from + WINDOW); i++) {
			if (nanos[i] > 0) {
				window.recordNanos(nanos[i]);
			}
		}
		return window.percentileMillis(50);
	}

	private String largeResult() {
		Claim claim = claim("benchmark:large-result");
		String large = "\"" + "x".repeat(ONE_MIB - 2) + "\"";
		long start = System.nanoTime();
		try {
			journal(claim, "large", large);
			double journaledIn = (System.nanoTime() - start) / 1e6;
			long readStart = System.nanoTime();
			String read = this.store.find(claim.key()).orElseThrow().journal().find("large").orElseThrow().result();
			if (!large.equals(read)) {
				throw new IllegalStateException("the 1 MiB result read back differs");
			}
			return String.format(Locale.ROOT, "journaled in %.1f ms, read back in %.1f ms", journaledIn,
					(System.nanoTime() - readStart) / 1e6);
		}
		catch (RuntimeException ex) {
			return "refused: " + describe(ex);
		}
	}

	private void journal(Claim claim, String name, String json) {
		StepRecord started = StepRecord.started(name, claim.attempt(), claim.token(), Instant.now());
		this.store.recordStep(claim, started);
		this.store.recordStep(claim, started.done(json, Instant.now()));
	}

	private Claim claim(String key) {
		if (this.store.tryClaim(key, "benchmark", LEASE) instanceof ClaimResult.Acquired acquired) {
			return acquired.claim();
		}
		throw new IllegalStateException("Fresh key " + key + " was not acquired");
	}

	private static String describe(RuntimeException ex) {
		String message = String.valueOf(ex.getMessage());
		return ex.getClass().getSimpleName() + " (" + ((message.length() > 90) ? message.substring(0, 90) + "…" : message)
				+ ")";
	}

}
