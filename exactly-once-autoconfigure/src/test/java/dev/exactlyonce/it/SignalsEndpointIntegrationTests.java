package dev.exactlyonce.it;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.actuate.ExactlyOnceMeters;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.testapp.ApprovalTaskHandler;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Signals sent over HTTP through the {@code exactlyonceops} endpoint against a real nats-server: each
 * outcome answers the status the answers table of docs/operating.md gives, the signal's sender in the
 * task's RESUME audit entry is the authenticated user, keys a path cannot carry go in the body, and
 * the waits' meters count the waiting task and its resumption.
 */
class SignalsEndpointIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.approvals.tasks.post";

	private static final String OPS = "/actuator/exactlyonceops/approvals";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("test.waits.enabled", "true")
			.with("test.web.user-header", "true")
			.with("exactlyonce.consumers.approvals.stream", "TASKS")
			.with("exactlyonce.consumers.approvals.filter-subject", "agents.approvals.tasks.>")
			.with("spring.main.web-application-type", "servlet")
			.with("server.port", "0")
			.with("management.endpoints.web.exposure.include", "exactlyonceops")
			.with("management.endpoint.exactlyonceops.access", "unrestricted");
	}

	@Test
	void aSignalOverHttpResumesTheTaskAndItsSenderIsTheAuthenticatedUser() throws Exception {
		Instance instance = this.instances.start("web");
		ActuatorHttp http = new ActuatorHttp(instance);
		publish(instance, "t-approved");
		JsonNode waiting = await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get(OPS + "/tasks?state=WAITING", 200), (page) -> page.get("total").asLong() == 1);
		assertThat(waiting.get("tasks").get(0).get("key").asString()).isEqualTo("t-approved");
		assertThat(waiting.get("tasks").get(0).get("resultSummary").asString()).startsWith("signal 'approval' until ");
		assertThat(waiting.get("tasks").get(0).get("completedAt").isNull()).as("a waiting task has not completed").isTrue();
		assertThat(http.get("/actuator/exactlyonceops", 200).get("consumers").get("approvals").get("tasks")
			.get("WAITING").asLong()).isEqualTo(1);

		MeterRegistry registry = instance.bean(MeterRegistry.class);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> registry.get(ExactlyOnceMeters.WAITS_WAITING).tag("consumer", "approvals").gauge().value() == 1);

		JsonNode answer = http.post(OPS + "/tasks/t-approved/signals/approval",
				"{\"payload\":\"{\\\"approved\\\":true,\\\"by\\\":\\\"alice\\\"}\",\"id\":\"s-1\",\"reason\":\"copy reviewed\"}", "alice",
				200);

		assertThat(answer.get("outcome").asString()).isEqualTo("RESUMED");
		assertThat(answer.get("id").asString()).isEqualTo("s-1");
		assertThat(answer.get("meaning").asString()).contains("it is resumed");
		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t-approved") != null);
		assertThat(handler.result("t-approved")).endsWith("approved by alice");
		JsonNode task = await().atMost(Duration.ofSeconds(30))
			.until(() -> http.get(OPS + "/tasks/t-approved", 200), (node) -> "COMPLETED".equals(node.get("status").asString()));
		assertThat(task.get("audit")).hasSize(1);
		assertThat(task.get("audit").get(0).get("kind").asString()).isEqualTo(OperatorAction.Kind.RESUME.name());
		assertThat(task.get("audit").get(0).get("operator").asString()).isEqualTo("alice");
		assertThat(task.get("audit").get(0).get("reason").asString()).isEqualTo("signal 'approval' (id s-1): copy reviewed");
		assertThat(task.get("completedAt").isNull()).isFalse();
		JsonNode approval = JSON.readTree(stepNamed(task, "approval").get("result").asString());
		assertThat(approval.has("payload")).as("hidden without exactlyonce.operations.show-payloads").isFalse();
		assertThat(approval.get("payloadHidden").asBoolean()).isTrue();
		assertThat(approval.get("signalId").asString()).isEqualTo("s-1");
		assertThat(registry.get(ExactlyOnceMeters.WAITS_RESUMED).tag("consumer", "approvals")
			.counter().count()).isEqualTo(1);
		assertThat(http.post(OPS + "/tasks/t-approved/signals/approval",
				"{\"payload\":\"{\\\"approved\\\":true,\\\"by\\\":\\\"alice\\\"}\",\"id\":\"s-1\",\"reason\":\"copy reviewed\"}",
				"alice", 200).get("outcome").asString()).as("the same request again, after the task finished")
			.isEqualTo("DUPLICATE");
		JsonNode late = http.post(OPS + "/tasks/t-approved/signals/approval",
				"{\"payload\":\"{\\\"approved\\\":false}\",\"id\":\"s-2\",\"reason\":\"changed my mind\"}", "bob", 409);
		assertThat(late.get("outcome").asString()).isEqualTo("TOO_LATE");
		assertThat(late.get("error").asString()).contains("cannot take this signal");
	}

	@Test
	void everySignalAnswerIsTheOneTheAnswersTableOfOperatingMdGives() throws Exception {
		Instance instance = this.instances.start("web", "test.waits.nap=3s");
		ActuatorHttp http = new ActuatorHttp(instance);
		AnswersTable table = AnswersTable.read();
		publish(instance, "t/early");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> http.status("GET", OPS + "/tasks?key=t%2Fearly", null) == 200 // 404 until its claim is stored
					&& http.get(OPS + "/tasks?key=t%2Fearly", 200).get("status").asString().equals("WAITING"));
		String early = JSON.writeValueAsString(Map.of("action", "signal", "key", "t/early", "name", "approval",
				"payload", "{\"approved\":false,\"by\":\"carol\"}", "id", "s-early", "reason", "off-brand"));
		String path = OPS + "/tasks/t/early/signals/approval";

		assertThat(http.post(OPS + "/tasks", early, "carol", table.status("a signal `BUFFERED`")).get("outcome")
			.asString()).as("sent before the task reached its wait").isEqualTo("BUFFERED");
		assertThat(http.post(OPS + "/tasks", early, "carol", table.status("`DUPLICATE`")).get("outcome").asString())
			.as("the same id again").isEqualTo("DUPLICATE");
		assertThat(http.post(path, "{\"payload\":\"{\\\"approved\\\":true}\",\"id\":\"s-other\",\"reason\":\"r\"}",
				"dave", table.status("a signal `TOO_LATE`")).get("outcome").asString())
			.as("another signal after the wait was decided").isEqualTo("TOO_LATE");
		assertThat(http.post(OPS + "/tasks/never-published/signals/approval", "{\"payload\":true,\"reason\":\"r\"}",
				"dave", table.status("a signal `NO_SUCH_TASK`")).get("outcome").asString()).isEqualTo("NO_SUCH_TASK");
		String namespaced = JSON.writeValueAsString(Map.of("action", "signal", "key", "approvals:t/early", "name",
				"approval", "payload", "true", "reason", "r"));
		assertThat(http.post(OPS + "/tasks", namespaced, "dave", table.status("a signal `NO_SUCH_TASK`")).get("error")
			.asString()).as("the key as logs show it").contains("without the namespace 'approvals:'",
					"send the signal with the key 't/early'");
		assertThat(http.post(path, "{\"payload\":true,\"reason\":\"" + "r".repeat(501) + "\"}", "dave",
				table.status("a `reason` longer than 500 characters")).get("error").asString())
			.contains("501 characters, more than the 500");
		assertThat(http.post(path, "{\"payload\":true}", "dave", table.status("no `reason`")).get("error").asString())
			.contains("\"reason\"");
		assertThat(http.post(path, "{\"reason\":\"r\"}", "dave", table.status("a signal without `payload`"))
			.get("error").asString()).contains("\"payload\"");
		assertThat(http.post(path, "{\"payload\":\"yes\",\"reason\":\"r\"}", "dave",
				table.status("a `payload` that is not JSON")).get("error").asString()).contains("is not JSON");
		assertThat(http.post(path, "{\"payload\":\"null\",\"reason\":\"r\"}", "dave",
				table.status("a `payload` that is not JSON")).get("error").asString()).contains("cannot be null");
		assertThat(http.post("/actuator/exactlyonceops/nobody/tasks/t/early/signals/approval",
				"{\"payload\":true,\"reason\":\"r\"}", "dave", table.status("an undeclared consumer")).get("error")
			.asString()).contains("No consumer 'nobody'");

		ApprovalTaskHandler handler = instance.bean(ApprovalTaskHandler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> handler.result("t/early") != null);
		assertThat(handler.result("t/early")).isEqualTo("rejected by carol");
		JsonNode task = http.get(OPS + "/tasks?key=t%2Fearly", 200);
		assertThat(task.get("audit")).as("the sleep's end resumed it; the kept signal ended its wait at once")
			.singleElement()
			.satisfies((action) -> assertThat(action.get("operator").asString()).isEqualTo("timer"));
	}

	private static JsonNode stepNamed(JsonNode task, String name) {
		for (JsonNode step : task.get("steps")) {
			if (name.equals(step.get("name").asString())) {
				return step;
			}
		}
		throw new AssertionError("No step '" + name + "' in " + task);
	}

	private void publish(Instance instance, String taskId) {
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
	}

}
