package dev.exactlyonce.benchmark;

import java.time.Duration;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The application {@link WaitsBenchmark} starts: one listener whose tasks either return at once
 * ({@code none}), await the signal {@code go} for a day ({@code signal}) or sleep
 * ({@code sleep}), reporting to the {@link WaitProbe} the benchmark registers.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class WaitsBenchmarkApplication {

	@Bean
	WaitingListener waitingListener(WaitProbe probe) {
		return new WaitingListener(probe);
	}

	/**
	 * A benchmark task.
	 * @param taskId its key
	 * @param mode {@code none}, {@code signal} or {@code sleep}
	 * @param sleepMillis how long a {@code sleep} task sleeps
	 */
	record WaitTask(String taskId, String mode, long sleepMillis) {
	}

	/** The benchmarked listener. */
	static class WaitingListener {

		/** The signal {@code signal} tasks await. */
		static final String SIGNAL = "go";

		private final WaitProbe probe;

		WaitingListener(WaitProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.consumer}", key = "payload.taskId")
		public void handle(WaitTask task, ExactlyOnceContext context) {
			switch (task.mode()) {
				case "signal" -> {
					this.probe.arrived();
					context.awaitSignal(SIGNAL, String.class, Duration.ofDays(1));
					this.probe.signalled(task.taskId());
				}
				case "sleep" -> {
					this.probe.reached(task.taskId());
					context.sleep("nap", Duration.ofMillis(task.sleepMillis()));
					this.probe.woke(task.taskId(), task.sleepMillis(), context.streamSequence());
				}
				default -> this.probe.finished();
			}
		}

	}

}
