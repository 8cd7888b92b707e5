package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueEntry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.NatsServerProcess;

import static org.awaitility.Awaitility.await;

/**
 * What the takeover's integration tests share: a nats-server of their own per test, and the worker
 * JVMs and application contexts they start, all stopped after the test.
 */
abstract class TakeoverTestsBase {

	protected NatsServerProcess nats;

	protected final List<ConfigurableApplicationContext> contexts = new CopyOnWriteArrayList<>();

	protected final List<TakeoverWorker> workers = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startNats() {
		this.nats = new NatsServerProcess().start();
	}

	@AfterEach
	void stop() throws Exception {
		for (TakeoverWorker worker : this.workers) {
			worker.close();
		}
		this.contexts.forEach(ConfigurableApplicationContext::close);
		this.nats.close();
	}

	/**
	 * Waits until a running process's record in the instances bucket lists the task (a task claimed just
	 * before a crash is not listed yet and takes the ack-wait path instead).
	 * @param storeKey the task's store key, e.g. {@code worker:t-0}
	 */
	protected void awaitListed(String storeKey) throws Exception {
		try (Connection connection = Nats.connect(this.nats.url())) {
			KeyValue bucket = connection.keyValue("EXACTLYONCE_INSTANCES");
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> listing(bucket, storeKey) != null);
		}
	}

	/**
	 * Waits until the instance record that lists a task has gone unwritten for {@code quiet} (on the
	 * server's timestamps of its writes, this machine's clock).
	 * @param storeKey the task's store key the record lists
	 * @param quiet how long the record must stay unchanged
	 * @throws Exception when the server cannot be reached
	 */
	protected void awaitRecordSilent(String storeKey, Duration quiet) throws Exception {
		try (Connection connection = Nats.connect(this.nats.url())) {
			KeyValue bucket = connection.keyValue("EXACTLYONCE_INSTANCES");
			await().atMost(quiet.plusSeconds(10)).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
				KeyValueEntry entry = listing(bucket, storeKey);
				return entry != null && Duration.between(entry.getCreated().toInstant(), Instant.now()).compareTo(quiet) >= 0;
			});
		}
	}

	/** The instance record that lists a task, or {@code null}. */
	private static KeyValueEntry listing(KeyValue bucket, String storeKey) throws Exception {
		for (String key : bucket.keys()) {
			KeyValueEntry entry = bucket.get(key);
			if (entry != null && entry.getValue() != null
					&& new String(entry.getValue(), StandardCharsets.UTF_8).contains("\"" + storeKey + "\"")) {
				return entry;
			}
		}
		return null;
	}

}
