package dev.exactlyonce.it;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.operations.KeyReopener;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code exactlyonceops} actuator endpoint over HTTP against a real nats-server: reads by
 * default, replay and discard only after the opt-in, refusals (a missing reason, a key given with its
 * namespace) answered with what to do.
 */
class OperationsEndpointIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String OPS = "/actuator/exactlyonceops/worker";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.non-retryable-exceptions", IllegalArgumentException.class.getName())
			.with("test.failure", "illegal-argument")
			.with("test.always-failing", "t-poison,t-cancelled")
			.with("spring.main.web-application-type", "servlet")
			.with("server.port", "0")
			.with("management.endpoints.web.exposure.include", "exactlyonceops");
	}

	@Test
	void deadLettersAreReplayedAndDiscardedOverHttpAfterTheOptIn() throws Exception {
		Instance instance = this.instances.start("web", "management.endpoint.exactlyonceops.access=unrestricted");
		ActuatorHttp http = new ActuatorHttp(instance);
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-ok"), "t-ok");
		publisher.publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		publisher.publish(SUBJECT, TaskAssignment.of("t-cancelled"), "t-cancelled");

		JsonNode overview = await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get("/actuator/exactlyonceops", 200),
					(node) -> node.get("consumers").get("worker").get("deadLetters").asLong() == 2
							&& node.get("consumers").get("worker").get("tasks").get("COMPLETED").asLong() == 1);
		assertThat(overview.get("listable").asBoolean()).isTrue();
		assertThat(overview.get("showPayloads").asBoolean()).isFalse();
		assertThat(overview.get("consumers").get("worker").get("tasks").get("DEAD_LETTERED").asLong()).isEqualTo(2);
		JsonNode letters = http.get(OPS + "/deadletters", 200);
		assertThat(letters).hasSize(2);
		assertThat(letters.get(0).get("key").asString()).isEqualTo("t-poison");
		assertThat(letters.get(0).get("payload").isNull()).isTrue();
		JsonNode deadLettered = http.get(OPS + "/tasks?state=DEAD_LETTERED", 200);
		assertThat(deadLettered.get("total").asLong()).isEqualTo(2);
		assertThat(http.get(OPS + "/tasks/t-ok", 200).get("status").asString()).isEqualTo("COMPLETED");
		assertThat(http.get(OPS + "/tasks/never-published", 404).get("error").asString())
			.contains("the store holds no record of it");
		assertThat(http.post(OPS + "/deadletters/999", "{\"action\":\"replay\",\"reason\":\"r\"}", 404).get("error")
			.asString()).contains("No dead letter of consumer 'worker' at sequence 999");
		assertThat(http.get(OPS + "/tasks", 400).get("error").asString()).contains("?state=");
		assertThat(http.get(OPS + "/tasks/worker:t-ok", 404).get("error").asString())
			.contains("without the namespace 'worker:'").contains("tasks?key=t-ok");
		assertThat(http.get(OPS + "/tasks?key=worker%3At%2F1", 404).get("error").asString())
			.contains("tasks?key=t%2F1");
		assertThat(http.post(OPS + "/tasks/t-ok", "{\"action\":\"resubmit\"}", 400).get("error").asString())
			.contains("\"reason\"");
		assertThat(http.delete(OPS + "/deadletters/" + letters.get(0).get("sequence").asLong(), 400).get("error")
			.asString()).contains("?reason=");
		this.instances.ledger().fix("t-poison");

		JsonNode replayed = http.post(OPS + "/deadletters/" + letters.get(0).get("sequence").asLong(),
				"{\"action\":\"replay\",\"reason\":\"parser fixed\"}", 200);
		JsonNode discarded = http.delete(OPS + "/deadletters/" + letters.get(1).get("sequence").asLong()
				+ "?reason=customer%20cancelled", 200);

		assertThat(replayed.get("messageId").asString())
			.isEqualTo("t-poison/replay-DEAD_LETTERS-" + letters.get(0).get("sequence").asLong());
		assertThat(discarded.get("action").asString()).isEqualTo("DISCARD");
		JsonNode completed = await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get(OPS + "/tasks/t-poison", 200),
					(task) -> task.get("status").asString().equals("COMPLETED"));
		assertThat(completed.get("audit").get(0).get("operator").asString()).isEqualTo("anonymous");
		assertThat(completed.get("audit").get(0).get("reason").asString()).isEqualTo("parser fixed");
		assertThat(http.get(OPS + "/tasks/t-cancelled", 200).get("audit").get(0).get("reason").asString())
			.isEqualTo("customer cancelled");
		assertThat(http.get(OPS + "/deadletters", 200)).isEmpty();
		assertThat(this.instances.ledger().executionsOf("t-poison")).isEqualTo(1);
	}

	@Test
	void everyRefusalAnswersTheStatusTheAnswersTableOfOperatingMdGives() throws Exception {
		// "web" only answers (its listener never starts: a resubmitted copy stays pending once "worker" stops)
		Instance instance = this.instances.start("web", "management.endpoint.exactlyonceops.access=unrestricted",
				"exactlyonce.streams.TASKS.retention=limits", "exactlyonce.listener.auto-startup=false");
		Instance worker = this.instances.start("worker", "exactlyonce.streams.TASKS.retention=limits");
		ActuatorHttp http = new ActuatorHttp(instance);
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		publisher.publish(SUBJECT, TaskAssignment.of("t-ok"), "t-ok");
		publisher.publish(SUBJECT, TaskAssignment.of("t-poison"), "t-poison");
		publisher.publish(SUBJECT, TaskAssignment.of("t-cancelled"), "t-cancelled");
		JsonNode letters = await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get(OPS + "/deadletters", 200), (node) -> node.size() == 2);
		long poison = letters.get(0).get("sequence").asLong();
		long cancelled = letters.get(1).get("sequence").asLong();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get(OPS + "/tasks?key=t-ok", 200).get("status").asString().equals("COMPLETED"));
		worker.bean(ExactlyOnceListenerRegistry.class).stop();
		// another instance's discard has recorded itself on the record, and not yet removed the dead letter
		worker.bean(KeyReopener.class).reopen("worker", "t-cancelled", OperatorAction.Kind.DISCARD, cancelled, "bob",
				"customer cancelled");
		Map<String, Integer> answered = new LinkedHashMap<>();
		answered.put("no `reason`", http.status("POST", OPS + "/deadletters/" + poison, "{\"action\":\"replay\"}"));
		answered.put("an unknown action",
				http.status("POST", OPS + "/deadletters/" + poison, "{\"action\":\"redo\",\"reason\":\"r\"}"));
		answered.put("not a number",
				http.status("POST", OPS + "/deadletters/x1", "{\"action\":\"replay\",\"reason\":\"r\"}"));
		answered.put("without `?state=`", http.status("GET", OPS + "/tasks", null));
		answered.put("page or size out of range", http.status("GET", OPS + "/tasks?state=FAILED&size=0", null));
		answered.put("an undeclared consumer", http.status("GET", "/actuator/exactlyonceops/nobody/deadletters", null));
		answered.put("no dead letter of the consumer at that sequence",
				http.status("DELETE", OPS + "/deadletters/999?reason=r", null));
		answered.put("no record of the task", http.status("GET", OPS + "/tasks/never-published", null));
		answered.put("won the race",
				http.status("POST", OPS + "/deadletters/" + cancelled, "{\"action\":\"replay\",\"reason\":\"r\"}"));
		answered.put("a resubmit of a dead-lettered task",
				http.status("POST", OPS + "/tasks/t-poison", "{\"action\":\"resubmit\",\"reason\":\"r\"}"));
		answered.put("done: the answer says what was done", http.status("POST", OPS + "/tasks/t-ok", "{\"action\":\"resubmit\",\"reason\":\"r\"}"));
		answered.put("copy has not run yet",
				http.status("POST", OPS + "/tasks/t-ok", "{\"action\":\"resubmit\",\"reason\":\"again\"}"));

		AnswersTable.read().assertAnswered(answered);
		assertThat(answered.values()).as("every refusal row is exercised here or below").containsAll(List.of(400, 404, 409));
	}

	@Test
	void writesAreRefusedWithoutTheOptIn() throws Exception {
		ActuatorHttp http = new ActuatorHttp(this.instances.start("read-only"));

		http.get("/actuator/exactlyonceops", 200);
		http.post(OPS + "/deadletters/1", "{\"action\":\"replay\",\"reason\":\"r\"}", 405);
		http.delete(OPS + "/deadletters/1?reason=r", 405);
	}

	@Test
	void anyKeyAListenerCanHaveIsReadAndResubmittedOverHttp() throws Exception {
		Instance instance = this.instances.start("web", "management.endpoint.exactlyonceops.access=unrestricted",
				"exactlyonce.streams.TASKS.retention=limits");
		ActuatorHttp http = new ActuatorHttp(instance);
		List<String> keys = List.of("t/step/a-1", "50%-off", "with space", "ünïcødé-✓", "semi;colon", "../up",
				"k".repeat(1024));
		ExactlyOncePublisher publisher = instance.bean(ExactlyOncePublisher.class);
		keys.forEach((key) -> publisher.publish(SUBJECT, TaskAssignment.of(key), key));
		assertThat(http.get("/actuator/exactlyonceops", 200).get("consumers").get("worker").get("resubmit")
			.asBoolean()).isTrue();

		for (String key : keys) {
			String query = OPS + "/tasks?key=" + URLEncoder.encode(key, StandardCharsets.UTF_8);
			JsonNode task = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
				.until(() -> http.get(query, 200), (node) -> "COMPLETED".equals(node.get("status").asString()));
			assertThat(task.get("key").asString()).isEqualTo(key);
			JsonNode resubmitted = http.post(OPS + "/tasks", JSON.writeValueAsString(
					Map.of("action", "resubmit", "key", key, "reason", "odd key")), 200);
			assertThat(resubmitted.get("messageId").asString()).isEqualTo(key + "/resubmit-1");
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> keys.stream().allMatch((key) -> this.instances.ledger().executionsOf(key) == 2));
		assertThat(http.post(OPS + "/tasks", "{\"action\":\"resubmit\",\"reason\":\"r\"}", 400).get("error")
			.asString()).contains("\"key\"");
	}

	@Test
	void resubmitIsNotOfferedForAStreamThatRemovesAcknowledgedMessages() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);

		JsonNode overview = http.get("/actuator/exactlyonceops", 200);

		assertThat(overview.get("consumers").get("worker").get("resubmit").asBoolean()).isFalse();
	}

}
