package dev.exactlyonce.sample;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.publish.ExactlyOncePublisher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard's Limits view in a real browser: a listener under limit {@code deploys} (concurrency 1,
 * one key per service) holds its slot while two more tasks of the same service wait; the page shows the
 * limit (concurrency, one holder, two waiting, the oldest waiter's age) and the service's key (1 of 1 in
 * use, 2 waiting). Released, the three tasks complete one after the other.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "exactlyonce.consumers.deploy-worker.stream=TASKS",
				"exactlyonce.consumers.deploy-worker.filter-subject=agents.deploy.tasks.>",
				"exactlyonce.consumers.deploy-worker.concurrency=4", "exactlyonce.limits.deploys.concurrency=1" })
@ActiveProfiles("demo")
@DirtiesContext
class LimitsDashboardBrowserIntegrationTests extends DashboardBrowserSupport {

	private static final String DEPLOYS = "deploy-worker";

	@Autowired
	ExactlyOncePublisher publisher;

	@Autowired
	DeployListener deploys;

	@Test
	void aLimitsHoldersAndQueueAreShownPerKey() throws Exception {
		for (String key : new String[] { "d-1", "d-2", "d-3" }) {
			this.publisher.publish("agents.deploy.tasks.run", new DeployTask(key, "checkout"), key);
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.deploys.started() == 1 && this.inspector.tasks(DEPLOYS, TaskStatus.WAITING, 0, 10).total() == 2);

		browser("limits", null, "checkout", "deploys");

		this.deploys.release();
		await().atMost(Duration.ofSeconds(60))
			.until(() -> this.inspector.tasks(DEPLOYS, TaskStatus.COMPLETED, 0, 10).total() == 3);
		assertThat(this.deploys.started()).isEqualTo(3);
		assertThat(SCREENSHOTS.resolve("dashboard-10-limits.png")).exists();
	}

	/** The listener under the limit. */
	@TestConfiguration(proxyBeanMethods = false)
	static class DeployConfiguration {

		@Bean
		DeployListener deployListener() {
			return new DeployListener();
		}

	}

	/** Holds its slot of {@code deploys} until released (at most a minute). */
	static class DeployListener {

		private final CountDownLatch released = new CountDownLatch(1);

		private final AtomicInteger started = new AtomicInteger();

		int started() {
			return this.started.get();
		}

		void release() {
			this.released.countDown();
		}

		@ExactlyOnceListener(consumer = DEPLOYS, key = "payload.taskId", limit = "deploys", limitKey = "payload.service")
		void handle(DeployTask task) throws InterruptedException {
			this.started.incrementAndGet();
			this.released.await(1, TimeUnit.MINUTES);
		}

	}

	/**
	 * A deploy.
	 * @param taskId its id, the key
	 * @param service the service deployed, the key within the limit
	 */
	record DeployTask(String taskId, String service) {
	}

}
