package dev.exactlyonce.listener;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * The kind of thread listeners run handlers, completion records and working acks on: those are as
 * many as the consumers' concurrency, so with virtual threads thousands cost little. Either kind
 * is named {@code <prefix>N}, numbered from 1, and never keeps the JVM alive; how many run at
 * once is bounded by the container's permits, not by the threads. Virtual threads are not
 * time-sliced: a handler that computes for long without blocking holds one of the carriers (one
 * per core) and delays the virtual threads behind it, working acks included.
 */
public enum ListenerThreads {

	/** Platform threads, pooled: as many as the pool's size, started when first needed. */
	PLATFORM {

		@Override
		ThreadFactory unnamed() {
			return (task) -> {
				Thread thread = new Thread(task);
				thread.setDaemon(true);
				return thread;
			};
		}

		@Override
		ExecutorService executor(String prefix, int size) {
			return Executors.newFixedThreadPool(size, factory(prefix));
		}

	},

	/** A new virtual thread per task: needs Java 21 or later ({@code spring.threads.virtual.enabled}). */
	VIRTUAL {

		/** Spring's factory: it fails before Java 21 ("Virtual threads not supported on JDK <21"). */
		@Override
		ThreadFactory unnamed() {
			return new VirtualThreadTaskExecutor().getVirtualThreadFactory();
		}

		/** A thread per task: no thread outlives its task to wait for the next. */
		@Override
		ExecutorService executor(String prefix, int size) {
			return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 0, TimeUnit.NANOSECONDS, new SynchronousQueue<>(),
					factory(prefix));
		}

	};

	/** Makes threads of this kind, named by the JVM. */
	abstract ThreadFactory unnamed();

	/**
	 * Runs tasks on threads of this kind.
	 * @param prefix the threads' name before their number
	 * @param size how many tasks may run at once (pooled platform threads)
	 * @return the executor
	 */
	abstract ExecutorService executor(String prefix, int size);

	/**
	 * Makes threads of this kind.
	 * @param prefix the threads' name before their number
	 * @return the factory
	 */
	ThreadFactory factory(String prefix) {
		ThreadFactory threads = unnamed();
		AtomicInteger number = new AtomicInteger();
		return (task) -> {
			Thread thread = threads.newThread(task);
			thread.setName(prefix + number.incrementAndGet());
			return thread;
		};
	}

}
