package dev.exactlyonce.takeover;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.nats.NatsOptionsCustomizer;

/**
 * An application of three steps on consumer {@code worker} of stream {@code TASKS} (subjects
 * {@code tasks.>}, the message's id as key). Each step's action prints {@code STEP <key> <step>} as
 * it starts; with {@code test.hold=true} step 2 waits until {@link Steps#release()}. Run as a main
 * class (a separate JVM the test kills) it holds step 2 and prints {@code READY} once started. Its NATS
 * client reconnects after {@link #RECONNECT_WAIT} and gives a request {@link #REQUEST_TIMEOUT}, shorter
 * than the defaults (2 s and 5 s) so that the takeover's silence, derived from both, is 6 s, not 15 s;
 * with {@code test.request-cleanup-interval} set, jnats cancels timed-out requests at that interval.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TakeoverApp {

	static final String STEP = "STEP";

	/** {@code exactlyonce.nats.reconnect-wait} of every instance. */
	static final Duration RECONNECT_WAIT = Duration.ofMillis(500);

	/** {@code exactlyonce.nats.request-timeout} of an instance unless a test sets another. */
	static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);

	/** How long a takeover waits for a silent record with this application's NATS settings. */
	static final Duration SILENCE = RestartTakeover.silence(RECONNECT_WAIT, REQUEST_TIMEOUT);

	@Bean
	Steps steps(org.springframework.core.env.Environment environment) {
		return new Steps(environment.getProperty("test.hold", Boolean.class, false));
	}

	@Bean
	NatsOptionsCustomizer requestCleanupInterval(org.springframework.core.env.Environment environment) {
		Duration interval = environment.getProperty("test.request-cleanup-interval", Duration.class);
		return (builder) -> {
			if (interval != null) {
				builder.requestCleanupInterval(interval);
			}
		};
	}

	/**
	 * Starts an instance.
	 * @param natsUrl the server
	 * @param instanceId its instance id
	 * @param extra further properties as {@code name=value}
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(String natsUrl, String instanceId, String... extra) {
		String[] common = { "exactlyonce.nats.servers=" + natsUrl, "exactlyonce.instance-id=" + instanceId,
				"exactlyonce.takeover.enabled=true",
				"exactlyonce.nats.reconnect-wait=" + RECONNECT_WAIT.toMillis() + "ms",
				"exactlyonce.nats.request-timeout=" + REQUEST_TIMEOUT.toMillis() + "ms",
				"exactlyonce.streams.TASKS.subjects=tasks.>", "exactlyonce.consumers.worker.stream=TASKS",
				"exactlyonce.consumers.worker.concurrency=4", "exactlyonce.consumers.worker.ack-wait=60s",
				"exactlyonce.store.lease=40s", "exactlyonce.waits.enabled=false",
				"spring.cloud.gcp.core.enabled=false", "spring.cloud.gcp.firestore.enabled=false" };
		return new SpringApplicationBuilder(TakeoverApp.class).web(WebApplicationType.NONE)
			.properties(common)
			.properties(extra)
			.run();
	}

	/**
	 * Runs an instance that holds step 2 until killed.
	 * @param args the server's URL and the instance id
	 */
	public static void main(String[] args) throws InterruptedException {
		start(args[0], args[1], "test.hold=true");
		System.out.println("READY");
		System.out.flush();
		new CountDownLatch(1).await();
	}

	/** The listener, and what its steps did in this instance. */
	static class Steps {

		private final boolean hold;

		private final CountDownLatch released = new CountDownLatch(1);

		private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		Steps(boolean hold) {
			this.hold = hold;
		}

		@ExactlyOnceListener(consumer = "worker")
		public String handle(String task, ExactlyOnceContext context) {
			for (int step = 1; step <= 3; step++) {
				int current = step;
				context.step("step" + step, String.class, () -> perform(context.key(), current));
			}
			return "done";
		}

		private String perform(String key, int step) throws InterruptedException {
			this.runs.computeIfAbsent(key + " " + step, (name) -> new AtomicInteger()).incrementAndGet();
			System.out.println(STEP + " " + key + " " + step);
			System.out.flush();
			if (this.hold && step == 2) {
				this.released.await();
			}
			return "step " + step + " of " + key;
		}

		/** How often this instance ran a task's step. */
		int runs(String key, int step) {
			AtomicInteger runs = this.runs.get(key + " " + step);
			return (runs != null) ? runs.get() : 0;
		}

		void release() {
			this.released.countDown();
		}

	}

}
