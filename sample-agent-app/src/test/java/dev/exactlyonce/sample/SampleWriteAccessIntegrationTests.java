package dev.exactlyonce.sample;

import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as it ships exposes reads only: the write operations of both endpoints answer 405 and an
 * anonymous health check shows no details; the {@code demo} profile (what scripts/demo.sh runs)
 * allows the writes and the details, on the loopback interface only.
 */
class SampleWriteAccessIntegrationTests {

	private static final NatsServerProcess nats = new NatsServerProcess();

	@TempDir
	static Path output;

	@AfterAll
	static void closeNats() {
		nats.close();
	}

	@Test
	void theDefaultProfileRefusesWritesAndHidesHealthDetails() {
		try (ConfigurableApplicationContext app = start()) {
			RestClient http = http(app);
			assertThat(reconcile(http)).isEqualTo(405);
			int discard = http.delete().uri("/actuator/exactlyonceops/marketing-task-worker/deadletters/1?reason=x")
				.exchange((request, response) -> response.getStatusCode().value());
			assertThat(discard).isEqualTo(405);
			assertThat(http.get().uri("/actuator/health").retrieve().body(String.class)).contains("\"status\":\"UP\"")
				.doesNotContain("components").doesNotContain(nats.url());
		}
	}

	@Test
	void theDemoProfileAllowsWritesOnTheLoopbackInterfaceOnly() {
		try (ConfigurableApplicationContext app = start("demo")) {
			RestClient http = http(app);
			assertThat(reconcile(http)).isEqualTo(200);
			assertThat(http.get().uri("/actuator/health").retrieve().body(String.class)).contains("marketing-task-worker");
			assertThat(app.getEnvironment().getProperty("server.address")).isEqualTo("127.0.0.1");
		}
	}

	private static ConfigurableApplicationContext start(String... profiles) {
		nats.start();
		return new SpringApplicationBuilder(SampleAgentApplication.class).profiles(profiles)
			.run("--server.port=0", "--exactlyonce.nats.servers=" + nats.url(),
					"--sample.output-dir=" + output.resolve(String.join("-", profiles) + "out"));
	}

	private static RestClient http(ConfigurableApplicationContext app) {
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		return RestClient.create("http://127.0.0.1:" + port);
	}

	private static int reconcile(RestClient http) {
		return (int) http.post().uri("/actuator/exactlyonce").header("Content-Type", "application/json")
			.body("{\"window\":\"1h\"}")
			.exchange((request, response) -> response.getStatusCode().value());
	}

}
