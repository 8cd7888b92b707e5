package dev.exactlyonce.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the sample on a store profile: the profile's store is used, a task assigned twice waits for
 * its approval (sent once the task is claimed, usually while it drafts: kept until the task reaches
 * its wait), runs once and its completion record is in that store. Each subclass brings its own servers and closes
 * its context afterwards, so no listener of one profile consumes another's tasks.
 */
abstract class SampleStoreProfileSupport {

	@TempDir
	static Path output;

	private final String expectedStore;

	@LocalServerPort
	int port;

	@Autowired
	IdempotencyStore store;

	@Autowired
	ExactlyOnceSignals signals;

	SampleStoreProfileSupport(String expectedStore) {
		this.expectedStore = expectedStore;
	}

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("sample.output-dir", () -> output.toString());
		registry.add("sample.work-duration", () -> "100ms");
	}

	@Test
	void taskRunsOnceWithItsRecordInTheProfilesStore() throws Exception {
		assertThat(this.store.name()).isEqualTo(this.expectedStore);
		RestClient http = RestClient.create("http://localhost:" + this.port);
		Map<String, Object> task = Map.of("taskId", "t-store", "assignee", "marketing", "type", "blog-post");
		http.post().uri("/tasks").body(task).retrieve().toBodilessEntity();
		http.post().uri("/tasks").body(task).retrieve().toBodilessEntity();
		// NO_SUCH_TASK until its first delivery is claimed; a store that did not answer: sent again, same id
		assertThat(await().atMost(Duration.ofSeconds(60))
			.ignoreException(StoreUnavailableException.class)
			.until(() -> this.signals.signal("marketing-task-worker", "t-store", MarketingAgent.APPROVAL,
					new Approval(true, "it", null), "t-store-approval"), (outcome) -> outcome != SignalOutcome.NO_SUCH_TASK))
			.isIn(SignalOutcome.BUFFERED, SignalOutcome.RESUMED);
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.store.find("marketing-task-worker:t-store")
				.map((record) -> record.state() == RecordState.COMPLETED)
				.orElse(false));
		assertThat(Files.readAllLines(output.resolve("ledger.log"))).singleElement()
			.asString()
			.startsWith("t-store 1 ");
	}

}
