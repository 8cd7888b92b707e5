package dev.exactlyonce.benchmark;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.StepOptions;

/**
 * The application {@link LimitsBenchmark} starts: a listener whose task runs one step, under the limit
 * {@code wide} or under none; a listener under the concurrency limit {@code four} (one key) whose task
 * works a few milliseconds; a listener under the rate limit {@code rated}. All report to the
 * {@link LimitProbe} the benchmark registers.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class LimitsBenchmarkApplication {

	@Bean
	StepListener stepListener(LimitProbe probe) {
		return new StepListener(probe);
	}

	@Bean
	KeyedListener keyedListener(LimitProbe probe) {
		return new KeyedListener(probe);
	}

	@Bean
	RatedListener ratedListener(LimitProbe probe) {
		return new RatedListener(probe);
	}

	/**
	 * A benchmark task.
	 * @param taskId its key
	 * @param limited whether its step runs under a limit
	 * @param service the key of the concurrency limit
	 */
	record LimitTask(String taskId, boolean limited, String service) {
	}

	/** One step, timed from the call to its return, under the limit {@code wide} or under none. */
	static class StepListener {

		private final LimitProbe probe;

		StepListener(LimitProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.limits.consumers.steps}", key = "payload.taskId")
		public void handle(LimitTask task, ExactlyOnceContext context) {
			long started = System.nanoTime();
			if (task.limited()) {
				context.step("work", String.class, () -> "ok", StepOptions.limit("wide"));
			}
			else {
				context.step("work", String.class, () -> "ok");
			}
			this.probe.stepped(task.limited(), System.nanoTime() - started);
		}

	}

	/** Under the concurrency limit {@code four}, one key per service: works, counting the tasks running at once. */
	static class KeyedListener {

		private static final long WORK_MILLIS = Long.getLong("benchmark.limits.work-ms", 50);

		private final LimitProbe probe;

		KeyedListener(LimitProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.limits.consumers.keyed}", key = "payload.taskId", limit = "four",
				limitKey = "payload.service")
		public void handle(LimitTask task) throws InterruptedException {
			this.probe.entered();
			try {
				Thread.sleep(WORK_MILLIS);
			}
			finally {
				this.probe.left();
			}
		}

	}

	/** Under the rate limit {@code rated}: records when it started. */
	static class RatedListener {

		private final LimitProbe probe;

		RatedListener(LimitProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.limits.consumers.rated}", key = "payload.taskId", limit = "rated")
		public void handle(LimitTask task) {
			this.probe.rated();
		}

	}

}
