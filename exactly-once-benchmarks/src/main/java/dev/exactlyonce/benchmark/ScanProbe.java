package dev.exactlyonce.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.RecordScanner;

/**
 * Times a {@link RecordScanner#scan} of a whole store that only counts the records, and watches this
 * JVM's heap meanwhile: the peak of the used heap, sampled every {@value #SAMPLE_MILLIS} ms, above
 * its level after a GC before the scan; and the heap still in use after a GC forced when half the
 * expected records have been counted, above the same level: what the scan holds on to, garbage
 * aside. The scan's time leaves that GC out.
 */
final class ScanProbe {

	private static final long SAMPLE_MILLIS = 50;

	private static final double MB = 1024.0 * 1024.0;

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private ScanProbe() {
	}

	/**
	 * Scans the store.
	 * @param scanner the store
	 * @param expected how many records it holds
	 * @return the count, time and heap growth
	 * @throws InterruptedException when interrupted while stopping the heap sampler
	 */
	static Result scan(RecordScanner scanner, long expected) throws InterruptedException {
		System.gc();
		long baseline = heapUsed();
		AtomicLong peak = new AtomicLong(baseline);
		Thread sampler = new Thread(() -> sample(peak), "scan-heap-sampler");
		sampler.setDaemon(true);
		sampler.start();
		HalfwayGc counter = new HalfwayGc(Math.max(expected / 2, 1));
		long start = System.nanoTime();
		try {
			scanner.scan(counter);
		}
		finally {
			sampler.interrupt();
			sampler.join();
		}
		double seconds = (System.nanoTime() - start - counter.gcNanos) / 1e9;
		double live = (counter.liveBytes >= 0) ? (counter.liveBytes - baseline) / MB : Double.NaN;
		return new Result(counter.count.get(), seconds, (peak.get() - baseline) / MB, live);
	}

	private static void sample(AtomicLong peak) {
		while (!Thread.currentThread().isInterrupted()) {
			peak.accumulateAndGet(heapUsed(), Math::max);
			try {
				Thread.sleep(SAMPLE_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private static long heapUsed() {
		return MEMORY.getHeapMemoryUsage().getUsed();
	}

	/** Counts records and, at the halfway count, runs a GC and reads the heap left in use. */
	private static final class HalfwayGc implements Consumer<IdempotencyRecord> {

		private final AtomicLong count = new AtomicLong();

		private final long halfway;

		private volatile long liveBytes = -1;

		private volatile long gcNanos;

		HalfwayGc(long halfway) {
			this.halfway = halfway;
		}

		@Override
		public void accept(IdempotencyRecord record) {
			if (this.count.incrementAndGet() == this.halfway) {
				long start = System.nanoTime();
				System.gc();
				this.liveBytes = heapUsed();
				this.gcNanos = System.nanoTime() - start;
			}
		}

	}

	/**
	 * One scan.
	 *
	 * @param records the records counted
	 * @param seconds how long it took, the halfway GC left out
	 * @param peakHeapMb the peak heap used above the level before, in MiB
	 * @param liveHeapMb the heap in use halfway through after a GC above the level before, in MiB
	 */
	record Result(long records, double seconds, double peakHeapMb, double liveHeapMb) {

		double recordsPerSecond() {
			return this.records / this.seconds;
		}

	}

}
