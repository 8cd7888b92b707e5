package dev.exactlyonce.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.test.EmbeddedNats;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The marketing agent's wait for approval end to end over HTTP against its own nats-server: a draft
 * waits (WAITING, no commit) until a person's {@link Approval} arrives through
 * {@link ExactlyOnceSignals}; approved, it is committed and deployed once; rejected, it completes
 * as rejected without a commit; unanswered, it expires at {@code sample.approval-timeout} (8 s here).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
@DirtiesContext
@EmbeddedNats
class SampleApprovalIntegrationTests {

	private static final String CONSUMER = "marketing-task-worker";

	@TempDir
	static Path output;

	@LocalServerPort
	int port;

	@Autowired
	ExactlyOnceSignals signals;

	@Autowired
	TaskInspector inspector;

	@Autowired
	PostRepository posts;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("sample.output-dir", () -> output.toString());
		registry.add("sample.work-duration", () -> "100ms");
		registry.add("sample.instance-id", () -> "approval-it");
		registry.add("sample.approval-timeout", () -> "8s");
	}

	@Test
	void approvedDraftIsCommittedAndDeployedOnce() throws Exception {
		assign("t-approved");
		TaskView waiting = waiting("t-approved");
		assertThat(waiting.resultSummary()).contains("signal 'approval'");
		assertThat(lines("ledger.log", "t-approved")).as("nothing written while it waits").isEmpty();

		assertThat(approve("t-approved", new Approval(true, "ana", "ship it"), "a-1")).isEqualTo(SignalOutcome.RESUMED);
		assertThat(approve("t-approved", new Approval(true, "ana", "ship it"), "a-1")).isEqualTo(SignalOutcome.DUPLICATE);

		TaskView done = completed("t-approved");
		String sha = done.resultSummary();
		await().atMost(Duration.ofSeconds(30)).until(() -> lines("deploys.log", "t-approved").size() == 1);
		assertThat(lines("deploys.log", "t-approved")).singleElement().asString().startsWith("t-approved " + sha + " ");
		assertThat(lines("drafts.log", "t-approved")).as("model calls").hasSize(1);
		assertThat(lines("ledger.log", "t-approved")).hasSize(1);
		assertThat(this.posts.findCommit("t-approved")).contains(sha);
	}

	@Test
	void rejectedDraftCompletesAsRejectedWithoutACommit() throws Exception {
		assign("t-rejected");
		waiting("t-rejected");
		assertThat(approve("t-rejected", new Approval(false, "bo", "off brand"), "r-1")).isEqualTo(SignalOutcome.RESUMED);

		assertThat(completed("t-rejected").resultSummary()).isEqualTo("rejected by bo: off brand");
		assertThat(approve("t-rejected", new Approval(true, "bo", null), "r-2")).as("a later answer")
			.isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(lines("drafts.log", "t-rejected")).as("model calls").hasSize(1);
		assertThat(this.posts.findCommit("t-rejected")).isEmpty();
		assertThat(lines("deploys.log", "t-rejected")).isEmpty();
	}

	@Test
	void unansweredDraftExpiresWithoutACommit() throws Exception {
		assign("t-expired");
		waiting("t-expired");

		assertThat(completed("t-expired").resultSummary()).isEqualTo("expired: no approval within 8s");
		assertThat(approve("t-expired", new Approval(true, "cy", null), "e-1")).isEqualTo(SignalOutcome.TOO_LATE);
		assertThat(this.posts.findCommit("t-expired")).isEmpty();
		assertThat(lines("deploys.log", "t-expired")).isEmpty();
	}

	private void assign(String taskId) {
		RestClient.create("http://localhost:" + this.port).post().uri("/tasks")
			.body(Map.of("taskId", taskId, "assignee", "marketing", "type", "blog-post", "payload",
					Map.of("topic", "launch")))
			.retrieve()
			.toBodilessEntity();
	}

	private SignalOutcome approve(String taskId, Approval approval, String signalId) {
		return this.signals.signal(CONSUMER, taskId, MarketingAgent.APPROVAL, approval, signalId);
	}

	private TaskView waiting(String taskId) {
		return await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(CONSUMER, taskId).orElse(null),
					(task) -> task != null && task.status() == TaskStatus.WAITING);
	}

	private TaskView completed(String taskId) {
		return await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(CONSUMER, taskId).orElse(null),
					(task) -> task != null && task.status() == TaskStatus.COMPLETED);
	}

	private static List<String> lines(String file, String taskId) throws Exception {
		Path path = output.resolve(file);
		return Files.exists(path)
				? Files.readAllLines(path).stream().filter((line) -> line.startsWith(taskId + " ")).toList()
				: List.of();
	}

}
