package dev.exactlyonce.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code exactlyonce} health contributor and endpoint through the real actuator HTTP
 * endpoints of a running application, against a real nats-server.
 */
class ActuatorIntegrationTests {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	private NatsServerProcess nats;

	private TestInstances instances;

	@BeforeEach
	void start() {
		this.nats = new NatsServerProcess().start();
		this.instances = new TestInstances(this.nats);
	}

	@AfterEach
	void stop() {
		this.instances.close();
		this.nats.close();
	}

	@Test
	void healthAndEndpointDescribeARunningApplication() throws Exception {
		Instance instance = this.instances.start("web", "spring.main.web-application-type=servlet", "server.port=0",
				"management.endpoints.web.exposure.include=health,exactlyonce",
				"management.endpoint.health.show-details=always", "management.endpoint.exactlyonce.access=unrestricted");
		String base = "http://127.0.0.1:" + instance.context().getEnvironment().getProperty("local.server.port");

		JsonNode health = get(base + "/actuator/health", 200).get("components").get("exactlyonce");
		assertThat(health.get("status").asString()).isEqualTo("UP");
		JsonNode details = health.get("details");
		assertThat(details.get("nats").get("status").asString()).isEqualTo("CONNECTED");
		assertThat(details.get("jetStream").get("available").asBoolean()).isTrue();
		assertThat(details.get("streams").get("TASKS").get("exists").asBoolean()).isTrue();
		assertThat(details.get("streams").get("TASKS").get("drift").isEmpty()).isTrue();
		assertThat(details.get("consumers").get("worker").get("exists").asBoolean()).isTrue();
		assertThat(details.get("store").get("name").asString()).isEqualTo("nats-kv");
		assertThat(details.get("store").get("reachable").asBoolean()).isTrue();
		assertThat(details.has("problems")).isFalse();

		this.instances.ledger().close();
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		JsonNode busy = await().atMost(Duration.ofSeconds(20))
			.until(() -> get(base + "/actuator/exactlyonce", 200), (node) -> node.get("inFlightClaims").get("total").asInt() == 1);
		JsonNode claim = busy.get("inFlightClaims").get("claims").get(0);
		assertThat(claim.get("key").asString()).isEqualTo("worker:t-1");
		assertThat(claim.get("owner").asString()).startsWith("web");
		assertThat(claim.get("leaseExpired").asBoolean()).isFalse();
		assertThat(busy.get("listeners").get(0).get("inFlight").asInt()).isEqualTo(1);
		this.instances.ledger().open();
		await().atMost(Duration.ofSeconds(20))
			.until(() -> instance.recorder().outcomes().contains(DeliveryOutcome.PROCESSED));

		JsonNode endpoint = get(base + "/actuator/exactlyonce", 200);
		System.out.println(this.json.writerWithDefaultPrettyPrinter().writeValueAsString(endpoint));
		assertThat(endpoint.get("store").asString()).isEqualTo("nats-kv");
		JsonNode listener = endpoint.get("listeners").get(0);
		assertThat(listener.get("consumer").asString()).isEqualTo("worker");
		assertThat(listener.get("running").asBoolean()).isTrue();
		JsonNode worker = endpoint.get("consumers").get("worker");
		assertThat(worker.get("stream").asString()).isEqualTo("TASKS");
		assertThat(worker.get("pending").asLong()).isZero();
		assertThat(worker.get("ackPending").asLong()).isZero();
		assertThat(worker.get("ackFloor").asLong()).isEqualTo(1);
		assertThat(worker.get("deadLetterSubject").asString()).isEqualTo("deadletter.TASKS.worker");
		assertThat(worker.get("deadLetters").asLong()).isZero();
		assertThat(endpoint.get("inFlightClaims").get("total").asInt()).isZero();

		JsonNode report = post(base + "/actuator/exactlyonce", "{\"window\":\"1h\"}");
		assertThat(report.get("consumers").get(0).get("completed").asLong()).isEqualTo(1);
		assertThat(get(base + "/actuator/exactlyonce", 200).get("lastReconciliation").get("consumers").get(0)
			.get("published").asLong()).isEqualTo(1);
		String table = this.http
			.send(HttpRequest.newBuilder(URI.create(base + "/actuator/exactlyonce/table")).build(),
					HttpResponse.BodyHandlers.ofString())
			.body();
		assertThat(table).contains("dup caught by idempotency check").contains("| worker ");

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			probe.connection().jetStreamManagement().deleteConsumer("TASKS", "worker");
		}
		JsonNode down = get(base + "/actuator/health", 503).get("components").get("exactlyonce");
		assertThat(down.get("status").asString()).isEqualTo("DOWN");
		assertThat(down.get("details").get("consumers").get("worker").get("exists").asBoolean()).isFalse();
		assertThat(down.get("details").get("problems").get(0).asString()).contains("Consumer 'worker'")
			.contains("does not exist");
	}

	@Test
	void reconciliationByHttpPostNeedsAnOptIn() throws Exception {
		String exposed = "management.endpoints.web.exposure.include=exactlyonce";
		String readOnly = baseUrl(this.instances.start("read-only", "spring.main.web-application-type=servlet",
				"server.port=0", exposed));
		String optedIn = baseUrl(this.instances.start("opted-in", "spring.main.web-application-type=servlet",
				"server.port=0", exposed, "management.endpoint.exactlyonce.access=unrestricted"));

		get(readOnly + "/actuator/exactlyonce", 200);
		assertThat(postStatus(readOnly + "/actuator/exactlyonce")).as("POST without the opt-in").isEqualTo(405);
		assertThat(postStatus(optedIn + "/actuator/exactlyonce")).as("POST after the opt-in").isEqualTo(200);
	}

	@Test
	void inMemoryStoreIsFlaggedButUp() {
		Instance instance = this.instances.start("memory", "exactlyonce.store.type=memory");
		Health health = instance.bean(ExactlyOnceHealthIndicator.class).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails().get("warnings").toString()).contains("exactlyonce.store.type=memory");
	}

	@Test
	void healthContributorCanBeDisabled() {
		Instance instance = this.instances.start("quiet", "management.health.exactlyonce.enabled=false");
		assertThat(instance.context().getBeansOfType(ExactlyOnceHealthIndicator.class)).isEmpty();
	}

	private JsonNode get(String url, int expectedStatus) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url)).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(url).isEqualTo(expectedStatus);
		return this.json.readTree(response.body());
	}

	private static String baseUrl(Instance instance) {
		return "http://127.0.0.1:" + instance.context().getEnvironment().getProperty("local.server.port");
	}

	private int postStatus(String url) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create(url))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
	}

	private JsonNode post(String url, String body) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(url))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(url).isEqualTo(200);
		return this.json.readTree(response.body());
	}

}
