package dev.exactlyonce.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.test.EmbeddedNats;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample end to end over HTTP against its own nats-server: a task assigned twice is
 * published once, drafted once, approved (the approval sent once the task is claimed, usually while
 * it drafts: kept for its wait when it comes first), committed once and deployed once; in the demo profile scripts/demo.sh runs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
@DirtiesContext
@EmbeddedNats
class SampleAgentApplicationIntegrationTests {

	@TempDir
	static Path output;

	@LocalServerPort
	int port;

	@Autowired
	ExactlyOnceSignals signals;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("sample.output-dir", () -> output.toString());
		registry.add("sample.work-duration", () -> "200ms");
		registry.add("sample.instance-id", () -> "it");
	}

	@Test
	void taskAssignedTwiceIsPublishedOnceAndWrittenOnce() throws Exception {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		Map<String, Object> task = Map.of("taskId", "t-1", "assignee", "marketing", "type", "blog-post", "payload",
				Map.of("topic", "launch"));
		Map<String, Object> first = http.post().uri("/tasks").body(task).retrieve().body(new ParameterizedTypeReference<Map<String, Object>>() {
		});
		Map<String, Object> second = http.post().uri("/tasks").body(task).retrieve().body(new ParameterizedTypeReference<Map<String, Object>>() {
		});
		assertThat(first).containsEntry("duplicate", false).containsEntry("taskId", "t-1");
		assertThat(second).containsEntry("duplicate", true).containsEntry("streamSequence", first.get("streamSequence"));
		// NO_SUCH_TASK until its first delivery is claimed
		assertThat(await().atMost(Duration.ofSeconds(30))
			.until(() -> this.signals.signal("marketing-task-worker", "t-1", MarketingAgent.APPROVAL,
					new Approval(true, "it", null), "t-1-approval"), (outcome) -> outcome != SignalOutcome.NO_SUCH_TASK))
			.isIn(SignalOutcome.BUFFERED, SignalOutcome.RESUMED);

		Path ledger = output.resolve("ledger.log");
		await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(ledger) && !Files.readAllLines(ledger).isEmpty());
		List<String> lines = Files.readAllLines(ledger);
		assertThat(lines).singleElement().asString().startsWith("t-1 1 it ");
		List<?> posts = http.get().uri("/posts").retrieve().body(List.class);
		assertThat(posts).singleElement().asString().contains("t-1");
		assertThat(Files.readAllLines(output.resolve("drafts.log"))).as("model calls").singleElement().asString()
			.startsWith("t-1 it ");
		assertThat(git("rev-list", "--count", "HEAD").strip()).as("commits").isEqualTo("1");
		String sha = git("log", "--format=%H", "--grep=^Task-Id: t-1$").strip();
		Path deploys = output.resolve("deploys.log");
		await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(deploys) && !Files.readAllLines(deploys).isEmpty());
		assertThat(Files.readAllLines(deploys)).singleElement().asString().startsWith("t-1 " + sha + " it ");
	}

	private static String git(String... arguments) throws Exception {
		List<String> command = new ArrayList<>(List.of("git", "-C", output.toString()));
		command.addAll(List.of(arguments));
		Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
		String out = new String(git.getInputStream().readAllBytes());
		assertThat(git.waitFor()).as(out).isZero();
		return out;
	}

	@Test
	void actuatorShowsHealthListenersAndMetrics() {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		String health = http.get().uri("/actuator/health").retrieve().body(String.class);
		assertThat(health).contains("\"exactlyonce\"").contains("marketing-task-worker").contains("\"status\":\"UP\"");
		String endpoint = http.get().uri("/actuator/exactlyonce").retrieve().body(String.class);
		assertThat(endpoint).contains("\"consumer\":\"marketing-task-worker\"").contains("\"store\":\"nats-kv\"");
		await().atMost(Duration.ofSeconds(20))
			.until(() -> http.get().uri("/actuator/prometheus").retrieve().body(String.class),
					(text) -> text.contains("exactlyonce_working_acks") || text.contains("exactlyonce_messages"));
	}

	@Test
	void taskWithAnInvalidIdIsRefusedWithTheRule() {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		String answer = http.post()
			.uri("/tasks")
			.body(Map.of("taskId", "has space", "assignee", "marketing", "type", "blog-post"))
			.exchange((request, response) -> response.getStatusCode().value() + " "
					+ new String(response.getBody().readAllBytes()));
		assertThat(answer).startsWith("400").contains("taskId is required and may only contain letters");
	}

}
