package dev.exactlyonce.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.test.EmbeddedNats;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the dashboard's browser tests share: the sample app on a random port with its own nats-server
 * ({@link EmbeddedNats}),
 * a poison task dead-lettered before the page is opened, and the browser script
 * ({@code src/test/browser/dashboard.mjs}, Debian's chromium driven by playwright-core, headless) run
 * one phase at a time. Screenshots go to {@code target/dashboard-screenshots}. {@code scripts/test.sh}
 * installs node's {@code playwright-core} and {@code chromium} when they are missing.
 */
@EmbeddedNats
abstract class DashboardBrowserSupport {

	static final String CONSUMER = "marketing-task-worker";

	static final Path SCREENSHOTS = Path.of("target/dashboard-screenshots");

	private static final Path BROWSER = Path.of("src/test/browser");

	@Autowired
	NatsServerProcess nats;

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
		registry.add("sample.output-dir", () -> output.toString());
		registry.add("sample.work-duration", () -> "200ms");
		registry.add("sample.instance-id", () -> "browser");
		registry.add("sample.rejected-topics", () -> "poison");
		registry.add("sample.approval-required", () -> "false");
	}

	/** Publishes a fine task and a poison one and waits until the poison one is dead-lettered. */
	void deadLetterAPoisonTask() {
		RestClient http = RestClient.create("http://localhost:" + this.port);
		for (String[] task : new String[][] { { "t-fine", "launch" }, { "t-poison", "poison" } }) {
			http.post().uri("/tasks").body(Map.of("taskId", task[0], "assignee", "marketing", "type", "blog-post",
					"payload", Map.of("topic", task[1]))).retrieve().toBodilessEntity();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> this.deadLetters.list(CONSUMER, 1, 10).size() == 1);
	}

	String dashboard() {
		return "http://localhost:" + this.port + "/exactlyonce";
	}

	/**
	 * Runs one phase of the browser script; fails with its output unless it succeeds.
	 * @param phase the phase
	 * @param user the HTTP Basic user, or {@code null} for none
	 */
	void browser(String phase, String user) throws Exception {
		browser(phase, user, "t-poison", CONSUMER);
	}

	/**
	 * Runs one phase of the browser script about a given task; fails with its output unless it succeeds.
	 * @param phase the phase
	 * @param user the HTTP Basic user, or {@code null} for none
	 * @param key the task's key
	 * @param consumer the task's consumer
	 */
	void browser(String phase, String user, String key, String consumer) throws Exception {
		assertThat(BROWSER.resolve("node_modules/playwright-core"))
			.as("playwright-core is not installed: run scripts/test.sh (or npm ci in %s)", BROWSER)
			.exists();
		Files.createDirectories(SCREENSHOTS);
		File log = SCREENSHOTS.resolve("browser-" + ((user != null) ? user + "-" : "") + phase + ".log").toFile();
		ProcessBuilder builder = new ProcessBuilder("node", "dashboard.mjs", phase, dashboard(),
				SCREENSHOTS.toAbsolutePath().toString(), key, consumer)
			.directory(BROWSER.toFile())
			.redirectErrorStream(true)
			.redirectOutput(log);
		if (user != null) {
			builder.environment().put("DASHBOARD_USER", user);
			builder.environment().put("DASHBOARD_PASSWORD", user + "-pw");
		}
		Process node = builder.start();
		boolean finished = node.waitFor(3, TimeUnit.MINUTES);
		if (!finished) {
			node.destroyForcibly();
		}
		assertThat(finished && node.exitValue() == 0).as("browser phase %s: %s", phase, Files.readString(log.toPath()))
			.isTrue();
	}

}
