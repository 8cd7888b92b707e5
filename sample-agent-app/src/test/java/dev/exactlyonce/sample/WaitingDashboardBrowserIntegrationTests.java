package dev.exactlyonce.sample;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.operations.ParentLink;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.OperatorAction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard's Waiting list in a real browser: two tasks of a test listener wait for signal
 * {@code review}; the page lists them (what they wait for, since, deadline), one is approved with its
 * Approve button and the other answered with the Signal form's own JSON; each resumes once with what
 * the page sent, and the task view shows its wait, ended by a signal, and the RESUME audit entry.
 * Then a lead task starts a review as its child task and waits for it: the page shows what the lead
 * waits for (the child, linked, still waiting, no Approve button on the lead) and the child's parent;
 * the child approved from its own view, the lead completes with the child's result.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "exactlyonce.consumers.review-worker.stream=TASKS",
				"exactlyonce.consumers.review-worker.filter-subject=agents.review.tasks.>",
				"exactlyonce.consumers.lead-worker.stream=TASKS",
				"exactlyonce.consumers.lead-worker.filter-subject=agents.lead.tasks.>" })
@ActiveProfiles("demo")
@DirtiesContext
class WaitingDashboardBrowserIntegrationTests extends DashboardBrowserSupport {

	private static final String REVIEWS = "review-worker";

	private static final String LEADS = "lead-worker";

	@Autowired
	ExactlyOncePublisher publisher;

	@Autowired
	ReviewListener reviews;

	@Test
	void waitingTasksAreListedAndAnsweredFromThePage() throws Exception {
		for (String key : new String[] { "r-approve", "r-signal" }) {
			this.publisher.publish("agents.review.tasks.post", new ReviewTask(key), key);
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.tasks(REVIEWS, TaskStatus.WAITING, 0, 10).total() == 2);

		browser("waiting", null, "r-approve", REVIEWS);
		browser("signal", null, "r-signal", REVIEWS);

		await().atMost(Duration.ofSeconds(30)).until(() -> this.reviews.result("r-approve") != null && this.reviews.result("r-signal") != null);
		assertThat(this.reviews.result("r-approve")).isEqualTo("approved by anonymous: looks right");
		assertThat(this.reviews.result("r-signal")).isEqualTo("rejected by page: custom payload");
		TaskView approved = await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(REVIEWS, "r-approve").orElseThrow(),
					(task) -> task.status() == TaskStatus.COMPLETED);
		assertThat(approved.audit()).singleElement().satisfies((action) -> {
			assertThat(action.kind()).isEqualTo(OperatorAction.Kind.RESUME);
			assertThat(action.operator()).isEqualTo("anonymous");
			assertThat(action.reason()).startsWith("signal 'review' (id dashboard-").endsWith("): looks right");
		});
		assertThat(SCREENSHOTS.resolve("dashboard-7-waiting.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-7-approved.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-8-signal-form.png")).exists();
	}

	@Test
	void aParentAndItsChildLinkEachOtherAndTheParentShowsWhatItWaitsFor() throws Exception {
		this.publisher.publish("agents.lead.tasks.post", new ReviewTask("lead-1"), "lead-1");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(REVIEWS, LEADS + "/lead-1/review").map(TaskView::status).orElse(null),
					(status) -> status == TaskStatus.WAITING);
		TaskView lead = await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(LEADS, "lead-1").orElseThrow(), (task) -> task.status() == TaskStatus.WAITING);
		assertThat(lead.children()).singleElement().satisfies((child) -> {
			assertThat(child.name()).isEqualTo("review");
			assertThat(child.key()).isEqualTo(LEADS + "/lead-1/review");
			assertThat(child.consumer()).isEqualTo(REVIEWS);
			assertThat(child.status()).isEqualTo(TaskStatus.WAITING);
		});
		assertThat(this.inspector.task(REVIEWS, LEADS + "/lead-1/review").orElseThrow().parent())
			.isEqualTo(new ParentLink(LEADS, "lead-1", "review"));

		browser("family", null, "lead-1", LEADS);

		TaskView done = await().atMost(Duration.ofSeconds(30))
			.until(() -> this.inspector.task(LEADS, "lead-1").orElseThrow(), (task) -> task.status() == TaskStatus.COMPLETED);
		assertThat(done.resultSummary()).isEqualTo("review: approved by anonymous: child checked");
		assertThat(done.children()).singleElement().satisfies((child) -> assertThat(child.status()).isEqualTo(TaskStatus.COMPLETED));
		assertThat(SCREENSHOTS.resolve("dashboard-9-parent-waits.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-9-child.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-9-parent-done.png")).exists();
	}

	/** A listener whose tasks wait for a person's review (signal {@code review}), for the page to answer. */
	@TestConfiguration(proxyBeanMethods = false)
	static class ReviewConfiguration {

		@Bean
		ReviewListener reviewListener() {
			return new ReviewListener();
		}

		@Bean
		LeadListener leadListener() {
			return new LeadListener();
		}

	}

	/** Waits up to a day for signal {@code review}: {@code {"approved": ..., "by": ..., "reason": ...}}. */
	static class ReviewListener {

		private final Map<String, String> results = new ConcurrentHashMap<>();

		/** The result of a task this listener finished, or {@code null} (a method: the bean may be a proxy). */
		String result(String taskId) {
			return this.results.get(taskId);
		}

		@ExactlyOnceListener(consumer = REVIEWS)
		String handle(ReviewTask task, ExactlyOnceContext context) {
			Optional<Review> review = context.awaitSignal("review", Review.class, Duration.ofDays(1));
			String result = review.map((r) -> (r.approved() ? "approved" : "rejected") + " by " + r.by() + ": " + r.reason())
				.orElse("timed out");
			this.results.put(task.taskId(), result);
			return result;
		}

	}

	/** Starts a review as its child task ({@code <consumer>/<key>/review}) and completes with the review's result. */
	static class LeadListener {

		@ExactlyOnceListener(consumer = LEADS)
		String handle(ReviewTask task, ExactlyOnceContext context) {
			ChildTask review = context.startChild("review", "agents.review.tasks.post", new ReviewTask(task.taskId() + "-review"));
			return "review: " + context.awaitChild(review, String.class, Duration.ofDays(1));
		}

	}

	/**
	 * A task to review.
	 * @param taskId its id, the key
	 */
	record ReviewTask(String taskId) {
	}

	/**
	 * A reviewer's answer, as the page's Approve and Reject buttons send it.
	 * @param approved whether it is approved
	 * @param by who answered
	 * @param reason why
	 */
	record Review(boolean approved, String by, String reason) {
	}

}
