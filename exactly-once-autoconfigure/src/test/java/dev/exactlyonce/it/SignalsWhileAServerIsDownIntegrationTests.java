package dev.exactlyonce.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Signals sent through the operations endpoint while the idempotency store (Redis, {@code appendfsync
 * always}) is down, stalls half-way through them or fails a read after the signal was stored, or while
 * NATS (which keeps the waits' decisions and tickets) is down: the sender gets a 503, sends the signal
 * again with the same id once the server is back, and the task resumes exactly once - never "RESUMED"
 * and lost, never resumed twice, as docs/waits.md and the answers table of docs/operating.md
 * promise.
 */
class SignalsWhileAServerIsDownIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.approvals.tasks.post";

	private static final String OPS = "/actuator/exactlyonceops/approvals";

	private static final int STALLED_TASKS = 8;

	private final RedisServerProcess redis = new RedisServerProcess("always").start();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.waits.enabled", "true")
			.with("exactlyonce.store.type", "redis")
			.with("spring.data.redis.host", this.redis.host())
			.with("spring.data.redis.port", this.redis.port())
			.with("spring.data.redis.timeout", "1s")
			.with("exactlyonce.consumers.approvals.stream", "TASKS")
			.with("exactlyonce.consumers.approvals.filter-subject", "agents.approvals.tasks.>")
			.with("exactlyonce.consumers.approvals.ack-wait", "5s")
			.with("exactlyonce.store.lease", "3s")
			.with("exactlyonce.waits.recheck-interval", "1s")
			.with("spring.main.web-application-type", "servlet")
			.with("server.port", "0")
			.with("management.endpoints.web.exposure.include", "exactlyonceops")
			.with("management.endpoint.exactlyonceops.access", "unrestricted");
	}

	@AfterEach
	void stopRedis() {
		this.redis.close();
	}

	@Test
	void aSignalSentWhileTheStoreIsDownAnswers503AndSentAgainWithItsIdResumesTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		publish(instance, "t-down");
		awaitWaiting(http, 1);

		this.redis.kill();
		assertThat(http.post(OPS + "/tasks/t-down/signals/approval", approval("s-down", true), 503).get("error")
			.asString()).as("the sender is told to send it again").contains("store");
		this.redis.start();
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
			.until(() -> store.find("approvals:t-down").isPresent());

		assertThat(http.post(OPS + "/tasks/t-down/signals/approval", approval("s-down", true), 200).get("outcome")
			.asString()).as("the store was down before the signal was stored: this sending takes it")
			.isEqualTo("RESUMED");
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-down") != null);
		assertThat(handler.result("t-down")).endsWith("approved by s-down");
		assertThat(this.instances.ledger().commitsOf("t-down")).hasSize(1);
		assertThat(http.post(OPS + "/tasks/t-down/signals/approval", approval("s-down", true), 200).get("outcome")
			.asString()).isEqualTo("DUPLICATE");
	}

	@Test
	void aSignalStoredWhenTheStoreFailedBeforeTheResumeAnswers503AndTheTimerResumesTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		publish(instance, "t-half");
		awaitWaiting(http, 1);

		// the signal's first read of the task passes, its decision is stored, its read before the resume fails
		instance.storeFaults().failOneFindOf("approvals:t-half", 1);
		assertThat(http.post(OPS + "/tasks/t-half/signals/approval", approval("s-half", true), 503).get("error")
			.asString()).contains("store");

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-half") != null);
		assertThat(handler.result("t-half")).as("resumed by the timer's next look (recheck-interval 1 s)")
			.endsWith("approved by s-half");
		assertThat(this.instances.ledger().commitsOf("t-half")).hasSize(1);
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		assertThat(await().atMost(Duration.ofSeconds(30))
			.until(() -> store.find("approvals:t-half").orElseThrow(), (record) -> record.isFinal())
			.audit()).as("resumed once").hasSize(1);
		assertThat(http.post(OPS + "/tasks/t-half/signals/approval", approval("s-half", true), 200).get("outcome")
			.asString()).as("sent again: the first sending had stored it").isEqualTo("DUPLICATE");
	}

	@Test
	void aSignalSentWhileNatsIsDownAnswers503AndSentAgainWithItsIdResumesTheTaskOnce() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		publish(instance, "t-nats");
		awaitWaiting(http, 1);

		this.nats.kill();
		assertThat(http.post(OPS + "/tasks/t-nats/signals/approval", approval("s-t-nats", false), 503).get("error")
			.asString()).as("the wait's decision could not be stored").isNotBlank();
		this.nats.start();

		String outcome = sendUntilAnswered(http, "t-nats", false, new ConcurrentHashMap<>());
		assertThat(outcome).as("a sending while NATS reconnected may have stored it").isIn("RESUMED", "DUPLICATE");
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-nats") != null);
		assertThat(handler.result("t-nats")).isEqualTo("rejected by s-t-nats");
		assertThat(this.instances.ledger().commitsOf("t-nats")).isEmpty();
		IdempotencyStore store = instance.bean(IdempotencyStore.class);
		assertThat(await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
			.until(() -> store.find("approvals:t-nats").orElseThrow(), (record) -> record.isFinal())
			.audit()).as("resumed once").hasSize(1);
	}

	@Test
	void signalsCutOffByAStoreStallAreTakenOnceWhenSentAgainWithTheirIds() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		for (int i = 0; i < STALLED_TASKS; i++) {
			publish(instance, "t-" + i);
		}
		awaitWaiting(http, STALLED_TASKS);
		Map<String, List<Integer>> statuses = new ConcurrentHashMap<>();
		ExecutorService senders = Executors.newFixedThreadPool(STALLED_TASKS);
		List<Future<String>> outcomes = new ArrayList<>();
		try {
			for (int i = 0; i < STALLED_TASKS; i++) {
				String key = "t-" + i;
				boolean approved = i % 4 != 0;
				outcomes.add(senders.submit(() -> sendUntilAnswered(http, key, approved, statuses)));
				if (i == STALLED_TASKS / 2) {
					// the store stalls while the first half's signals are on their way: some are stored on
					// NATS and cannot resume their task, some are not stored at all
					this.redis.pause();
				}
			}
			await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
				.until(() -> statuses.values().stream().anyMatch((list) -> list.contains(503)));
			this.redis.resume();
			List<String> answers = new ArrayList<>();
			for (Future<String> outcome : outcomes) {
				answers.add(outcome.get());
			}
			assertThat(answers).as("every signal is answered RESUMED, or DUPLICATE when an earlier sending stored it")
				.allMatch((answer) -> answer.equals("RESUMED") || answer.equals("DUPLICATE"));
		}
		finally {
			senders.shutdownNow();
		}
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		for (int i = 0; i < STALLED_TASKS; i++) {
			String key = "t-" + i;
			await().atMost(Duration.ofSeconds(30)).until(() -> handler.result(key) != null);
			if (i % 4 != 0) {
				assertThat(handler.result(key)).as(key).endsWith("approved by s-" + key);
				assertThat(this.instances.ledger().commitsOf(key)).as(key).hasSize(1);
			}
			else {
				assertThat(handler.result(key)).as(key).isEqualTo("rejected by s-" + key);
				assertThat(this.instances.ledger().commitsOf(key)).as(key).isEmpty();
			}
		}
		assertThat(statuses.values().stream().flatMap(List::stream)).as("the stall answered some sendings 503")
			.contains(503);
	}

	/** Sends a task's signal until it is answered 200, always with the same id; the answer's outcome. */
	private static String sendUntilAnswered(ActuatorHttp http, String key, boolean approved,
			Map<String, List<Integer>> statuses) throws Exception {
		String path = OPS + "/tasks/" + key + "/signals/approval";
		String body = approval("s-" + key, approved);
		return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
			ActuatorHttp.Answer answer = http.postAnyStatus(path, body);
			statuses.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(answer.status());
			return (answer.status() == 200) ? answer.body().get("outcome").asString() : null;
		}, (outcome) -> outcome != null);
	}

	private static String approval(String id, boolean approved) {
		return "{\"payload\":\"{\\\"approved\\\":" + approved + ",\\\"by\\\":\\\"" + id + "\\\"}\",\"id\":\"" + id
				+ "\",\"reason\":\"reviewed\"}";
	}

	private static void awaitWaiting(ActuatorHttp http, int tasks) {
		await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
			.until(() -> http.get(OPS + "/tasks?state=WAITING", 200).get("total").asLong() == tasks);
	}

	private void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

}
