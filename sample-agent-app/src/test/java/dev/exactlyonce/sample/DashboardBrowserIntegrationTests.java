package dev.exactlyonce.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard in a real browser (Debian's chromium driven by playwright-core, headless) against
 * the sample app and its own nats-server: a poison task shows up as a dead letter on the page,
 * payload hidden; after the "fix" (the rejected topic is cleared while the app runs) a click on
 * Replay, with a reason in the confirmation, runs it once and the page shows it completed.
 * Screenshots go to {@code target/dashboard-screenshots}. {@code scripts/test.sh} installs node's
 * {@code playwright-core} and {@code chromium} when they are missing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class DashboardBrowserIntegrationTests {

	private static final NatsServerProcess nats = new NatsServerProcess().start();

	private static final Path BROWSER = Path.of("src/test/browser");

	private static final Path SCREENSHOTS = Path.of("target/dashboard-screenshots");

	@TempDir
	static Path output;

	@LocalServerPort
	int port;

	@Autowired
	SampleProperties properties;

	@Autowired
	DeadLetterOperations deadLetters;

	@Autowired
	TaskInspector inspector;

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		registry.add("exactlyonce.nats.servers", nats::url);
		registry.add("sample.output-dir", () -> output.toString());
		registry.add("sample.work-duration", () -> "200ms");
		registry.add("sample.instance-id", () -> "browser");
		registry.add("sample.rejected-topics", () -> "poison");
	}

	@AfterAll
	static void stopNats() {
		nats.close();
	}

	@Test
	void poisonTaskIsReplayedFromThePageAfterTheFixAndShownCompleted() throws Exception {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		for (String[] task : new String[][] { { "t-fine", "launch" }, { "t-poison", "poison" } }) {
			http.post().uri("/tasks").body(Map.of("taskId", task[0], "assignee", "marketing", "type", "blog-post",
					"payload", Map.of("topic", task[1]))).retrieve().toBodilessEntity();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> this.deadLetters.list("marketing-task-worker", 1, 10).size() == 1);
		String dashboard = "http://localhost:" + this.port + "/exactlyonce";

		browser("dead-letter", dashboard);
		this.properties.setRejectedTopics(Set.of());
		browser("replay", dashboard);

		assertThat(this.inspector.task("marketing-task-worker", "t-poison").orElseThrow().status())
			.isEqualTo(TaskStatus.COMPLETED);
		assertThat(this.deadLetters.list("marketing-task-worker", 1, 10)).isEmpty();
		List<String> ledger = Files.readAllLines(output.resolve("ledger.log"));
		assertThat(ledger).filteredOn((line) -> line.startsWith("t-poison ")).hasSize(1);
		assertThat(SCREENSHOTS.resolve("dashboard-1-dead-letter.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-3-replayed.png")).exists();
	}

	/** Runs one phase of the browser script; fails with its output unless it succeeds. */
	private static void browser(String phase, String url) throws Exception {
		assertThat(BROWSER.resolve("node_modules/playwright-core"))
			.as("playwright-core is not installed: run scripts/test.sh (or npm ci in %s)", BROWSER)
			.exists();
		Files.createDirectories(SCREENSHOTS);
		File log = SCREENSHOTS.resolve("browser-" + phase + ".log").toFile();
		Process node = new ProcessBuilder("node", "dashboard.mjs", phase, url, SCREENSHOTS.toAbsolutePath().toString(),
				"t-poison")
			.directory(BROWSER.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log)
			.start();
		boolean finished = node.waitFor(3, TimeUnit.MINUTES);
		if (!finished) {
			node.destroyForcibly();
		}
		assertThat(finished && node.exitValue() == 0).as("browser phase %s: %s", phase, Files.readString(log.toPath()))
			.isTrue();
	}

}
