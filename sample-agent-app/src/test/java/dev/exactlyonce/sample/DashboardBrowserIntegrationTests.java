package dev.exactlyonce.sample;

import java.nio.file.Files;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;

import dev.exactlyonce.operations.TaskStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in a real browser against the sample app: a poison task shows up as a dead letter on
 * the page, payload hidden, its exception's message shown (whole, once expanded), and the page does not
 * scroll sideways at 1280 or 1920 px; the dead letter's link and its task's link open them in a fresh page
 * (the task dead-lettered, with its exception's message); the monthly table says what Published counts;
 * with the metrics endpoint absent the charts are hidden and metrics asked for once; after the "fix" (the rejected topic is cleared while the app runs) a click on
 * Replay, with a reason in the confirmation, runs it once and the page shows it completed; the follow-up
 * task it published (a key with slashes) is found with the page's form, and the page's address opens it again. With NATS
 * paused a fresh page says that nothing could be read and why instead of staying on "Loading…".
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
@DirtiesContext
class DashboardBrowserIntegrationTests extends DashboardBrowserSupport {

	@Test
	void poisonTaskIsReplayedFromThePageAfterTheFixAndShownCompleted() throws Exception {
		deadLetterAPoisonTask();

		browser("dead-letter", null);
		browser("no-metrics", null);
		this.properties.setRejectedTopics(Set.of());
		browser("replay", null);
		String followUp = this.inspector.tasks("devops-task-worker", TaskStatus.COMPLETED, 0, 10).tasks().get(0).key();
		assertThat(followUp).as("a follow-up's key, published by context.publish").contains("/");
		browser("find", null, followUp, "devops-task-worker");
		this.nats.pause();
		try {
			browser("stale", null);
		}
		finally {
			this.nats.resume();
		}

		assertThat(this.inspector.task(CONSUMER, "t-poison").orElseThrow().status()).isEqualTo(TaskStatus.COMPLETED);
		assertThat(this.deadLetters.list(CONSUMER, 1, 10)).isEmpty();
		List<String> ledger = Files.readAllLines(output.resolve("ledger.log"));
		assertThat(ledger).filteredOn((line) -> line.startsWith("t-poison ")).hasSize(1);
		assertThat(SCREENSHOTS.resolve("dashboard-1-dead-letter-1280.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-1-dead-letter-1920.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-1-task-link.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-6-no-metrics.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-3-replayed.png")).exists();
		assertThat(SCREENSHOTS.resolve("dashboard-4-stale.png")).exists();
	}

}
