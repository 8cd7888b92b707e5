package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The application {@link StarterPeer} starts: one listener running {@link PeerTask}'s three steps
 * as {@code context.step}s, each step's result journaled in the store; a waiting task
 * ({@link PeerTask#waitingTask}) awaits {@link PeerTask#SIGNAL} instead.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class PeerTaskApplication {

	@Bean
	PeerTaskListener peerTaskListener(@Value("${benchmark.work-millis}") int workMillis,
			AtomicReference<TaskCompletions> peerCompletions) {
		return new PeerTaskListener(workMillis, peerCompletions);
	}

	/** The task as an exactly-once listener; the payload is the task's id. */
	static class PeerTaskListener {

		private final int workMillis;

		private final AtomicReference<TaskCompletions> completions;

		PeerTaskListener(int workMillis, AtomicReference<TaskCompletions> completions) {
			this.workMillis = workMillis;
			this.completions = completions;
		}

		@ExactlyOnceListener(consumer = "${benchmark.consumer}")
		public void handle(byte[] payload, ExactlyOnceContext context) {
			String taskId = new String(payload, StandardCharsets.UTF_8);
			if (PeerTask.arrivesAtWait(taskId)) {
				context.awaitSignal(PeerTask.SIGNAL, String.class, Duration.ofHours(1));
				PeerTask.finished(this.completions, taskId);
				return;
			}
			for (int step = 1; step <= PeerTask.STEPS; step++) {
				int number = step;
				context.step("step" + step, String.class, () -> PeerTask.step(taskId, number, this.workMillis));
			}
			PeerTask.finished(this.completions, taskId);
		}

	}

}
