package dev.exactlyonce.benchmark;

/**
 * The benchmarked handler's fixed cost, the same for raw and exactly-once runs.
 */
final class BenchmarkWork {

	private BenchmarkWork() {
	}

	static void perform(int workMillis) {
		if (workMillis <= 0) {
			return;
		}
		try {
			Thread.sleep(workMillis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
