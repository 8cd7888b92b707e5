package dev.exactlyonce.benchmark;

import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;

/**
 * The application an exactly-once benchmark run starts: one listener whose handler costs
 * {@code benchmark.work-millis}, and a stopwatch observing its pipeline.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class BenchmarkApplication {

	@Bean
	BenchmarkListener benchmarkListener(@Value("${benchmark.work-millis}") int workMillis) {
		return new BenchmarkListener(workMillis);
	}

	@Bean
	@ConditionalOnProperty("spring.cloud.gcp.firestore.emulator.enabled")
	CredentialsProvider emulatorCredentials() {
		return NoCredentialsProvider.create();
	}

	/** The benchmarked listener. */
	static class BenchmarkListener {

		private final int workMillis;

		BenchmarkListener(int workMillis) {
			this.workMillis = workMillis;
		}

		@ExactlyOnceListener(consumer = "${benchmark.consumer}")
		public void handle(byte[] payload) {
			BenchmarkWork.perform(this.workMillis);
		}

	}

}
