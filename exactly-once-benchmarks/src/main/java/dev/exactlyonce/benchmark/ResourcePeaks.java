package dev.exactlyonce.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this JVM held at its peak while a run went on, sampled every {@value #SAMPLE_MILLIS} ms:
 * live platform threads (virtual threads are not counted by the JVM's thread bean), heap used
 * and resident memory (Linux {@code VmRSS}; 0 elsewhere).
 */
final class ResourcePeaks implements AutoCloseable {

	private static final long SAMPLE_MILLIS = 20;

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private final AtomicLong heap = new AtomicLong();

	private final AtomicLong rss = new AtomicLong();

	private final Thread sampler = new Thread(this::sample, "resource-peaks-sampler");

	private int platformThreads;

	/** Starts sampling, after a GC so that the heap's peak is not the last run's garbage. */
	ResourcePeaks() {
		System.gc();
		THREADS.resetPeakThreadCount();
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	@Override
	public void close() throws InterruptedException {
		this.sampler.interrupt();
		this.sampler.join();
		this.platformThreads = THREADS.getPeakThreadCount();
	}

	int platformThreads() {
		return this.platformThreads;
	}

	double heapMib() {
		return this.heap.get() / 1024.0 / 1024.0;
	}

	double rssMib() {
		return this.rss.get() / 1024.0;
	}

	private void sample() {
		while (!Thread.currentThread().isInterrupted()) {
			this.heap.accumulateAndGet(MEMORY.getHeapMemoryUsage().getUsed(), Math::max);
			this.rss.accumulateAndGet(rssKib(), Math::max);
			try {
				Thread.sleep(SAMPLE_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private static long rssKib() {
		try {
			return Files.readAllLines(Path.of("/proc/self/status"))
				.stream()
				.filter((line) -> line.startsWith("VmRSS:"))
				.mapToLong((line) -> Long.parseLong(line.replaceAll("[^0-9]", "")))
				.findFirst()
				.orElse(0);
		}
		catch (IOException ex) {
			return 0;
		}
	}

}
