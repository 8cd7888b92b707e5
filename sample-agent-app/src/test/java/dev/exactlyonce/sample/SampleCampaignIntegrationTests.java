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

import dev.exactlyonce.operations.ChildLink;
import dev.exactlyonce.operations.ParentLink;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.test.EmbeddedNats;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.LIST;
import static org.awaitility.Awaitility.await;

/**
 * The CEO agent's campaign end to end over HTTP against its own nats-server: {@code POST /campaigns}
 * (twice: stored once) starts three marketing posts as child tasks, each drafted once and waiting for
 * its approval while the campaign waits for all three (both WAITING, linked to each other in the task
 * endpoint, over HTTP too); two approved and one rejected through {@link ExactlyOnceSignals}, the campaign starts one
 * deploy of the two commits as a child of the DevOps agent (the posts deploy nothing of their own),
 * and completes with a summary of what was deployed and what was not. A campaign whose posts are all
 * dead-lettered (their topic in {@code sample.rejected-topics}) deploys nothing and says why.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
@DirtiesContext
@EmbeddedNats
class SampleCampaignIntegrationTests {

	private static final String CEO = "ceo-campaign-worker";

	private static final String MARKETING = "marketing-task-worker";

	private static final String DEVOPS = "devops-task-worker";

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
		registry.add("sample.instance-id", () -> "campaign-it");
		registry.add("sample.rejected-topics", () -> "poison");
	}

	@Test
	void campaignDeploysItsApprovedPostsOnceAllThreeAreDecided() throws Exception {
		assertThat(launch("c-1").get("duplicate")).isEqualTo(false);
		assertThat(launch("c-1").get("duplicate")).as("the same campaign posted again").isEqualTo(true);
		for (String post : CeoAgent.POSTS) {
			assertThat(waiting(MARKETING, CEO + "/c-1/" + post).parent()).isEqualTo(new ParentLink(CEO, "c-1", post));
		}
		TaskView campaign = waiting(CEO, "c-1");
		assertThat(campaign.children()).extracting(ChildLink::name).containsExactlyElementsOf(CeoAgent.POSTS);
		assertThat(campaign.children()).allSatisfy((child) -> {
			assertThat(child.consumer()).isEqualTo(MARKETING);
			assertThat(child.status()).isEqualTo(TaskStatus.WAITING);
			assertThat(child.resultSummary()).contains("signal 'approval'");
		});

		assertThat(answer(CEO + "/c-1/blog-post", new Approval(true, "ana", "ship it"))).isEqualTo(SignalOutcome.RESUMED);
		assertThat(answer(CEO + "/c-1/newsletter", new Approval(false, "bo", "off brand"))).isEqualTo(SignalOutcome.RESUMED);
		assertThat(completed(MARKETING, CEO + "/c-1/newsletter").resultSummary()).isEqualTo("rejected by bo: off brand");
		assertThat(waiting(CEO, "c-1", "child 'social-post.result'").children()).as("the post it still waits for")
			.filteredOn((child) -> child.status() != TaskStatus.COMPLETED)
			.extracting(ChildLink::name)
			.containsExactly("social-post");
		assertThat(answer(CEO + "/c-1/social-post", new Approval(true, "ana", null))).isEqualTo(SignalOutcome.RESUMED);

		TaskView done = completed(CEO, "c-1");
		String blog = this.posts.findCommit("c-1-blog-post").orElseThrow();
		String social = this.posts.findCommit("c-1-social-post").orElseThrow();
		assertThat(done.resultSummary()).isEqualTo("deployed 2 of 3 posts (blog-post " + blog.substring(0, 7)
				+ ", social-post " + social.substring(0, 7) + "); not deployed: newsletter rejected by bo: off brand");
		assertThat(this.posts.findCommit("c-1-newsletter")).isEmpty();
		assertThat(done.children()).extracting(ChildLink::name)
			.containsExactly("blog-post", "newsletter", "social-post", CeoAgent.DEPLOY);
		assertThat(done.children()).allSatisfy((child) -> assertThat(child.status()).isEqualTo(TaskStatus.COMPLETED));
		assertThat(done.children().get(3).consumer()).isEqualTo(DEVOPS);
		assertThat(completed(DEVOPS, CEO + "/c-1/deploy").parent()).isEqualTo(new ParentLink(CEO, "c-1", CeoAgent.DEPLOY));

		assertThat(endpoint(CEO, "c-1").get("children")).as("the task endpoint's children").asInstanceOf(LIST)
			.extracting((child) -> ((Map<?, ?>) child).get("key") + " " + ((Map<?, ?>) child).get("status"))
			.containsExactly(CEO + "/c-1/blog-post COMPLETED", CEO + "/c-1/newsletter COMPLETED", CEO + "/c-1/social-post COMPLETED",
					CEO + "/c-1/deploy COMPLETED");
		assertThat(endpoint(MARKETING, CEO + "/c-1/newsletter").get("parent")).as("the task endpoint's parent")
			.isEqualTo(Map.of("consumer", CEO, "key", "c-1", "childName", "newsletter"));

		assertThat(lines("deploys.log", "c-1")).as("one deploy of the campaign's commits")
			.singleElement().asString().startsWith("c-1 " + blog + "," + social + " ");
		for (String post : CeoAgent.POSTS) {
			assertThat(lines("drafts.log", "c-1-" + post)).as("model calls of " + post).hasSize(1);
			assertThat(lines("deploys.log", "c-1-" + post)).as("a deploy of its own").isEmpty();
		}
	}

	@Test
	void campaignWhosePostsAreDeadLetteredDeploysNothingAndSaysWhy() {
		launch("c-2", "poison");

		TaskView done = completed(CEO, "c-2");
		assertThat(done.resultSummary()).startsWith("nothing to deploy: blog-post dead-lettered: ")
			.contains("; newsletter dead-lettered: ", "; social-post dead-lettered: ");
		assertThat(done.children()).extracting(ChildLink::status).containsOnly(TaskStatus.DEAD_LETTERED);
		assertThat(this.inspector.task(DEVOPS, CEO + "/c-2/deploy")).as("no deploy started").isEmpty();
	}

	private Map<?, ?> launch(String campaignId) {
		return launch(campaignId, "launch");
	}

	private Map<?, ?> launch(String campaignId, String topic) {
		return RestClient.create("http://localhost:" + this.port).post().uri("/campaigns")
			.body(Map.of("campaignId", campaignId, "topic", topic))
			.retrieve()
			.body(Map.class);
	}

	private Map<?, ?> endpoint(String consumer, String key) {
		return RestClient.create("http://localhost:" + this.port).get()
			.uri("/actuator/exactlyonceops/{consumer}/tasks?key={key}", consumer, key)
			.retrieve()
			.body(Map.class);
	}

	private SignalOutcome answer(String key, Approval approval) {
		return this.signals.signal(MARKETING, key, MarketingAgent.APPROVAL, approval, key + "-review");
	}

	private TaskView waiting(String consumer, String key) {
		return waiting(consumer, key, "");
	}

	private TaskView waiting(String consumer, String key, String forWhat) {
		return await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(consumer, key).orElse(null), (task) -> task != null
					&& task.status() == TaskStatus.WAITING && task.resultSummary().contains(forWhat));
	}

	private TaskView completed(String consumer, String key) {
		return await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(consumer, key).orElse(null),
					(task) -> task != null && task.status() == TaskStatus.COMPLETED);
	}

	private static List<String> lines(String file, String taskId) throws Exception {
		Path path = output.resolve(file);
		return Files.exists(path)
				? Files.readAllLines(path).stream().filter((line) -> line.startsWith(taskId + " ")).toList()
				: List.of();
	}

}
