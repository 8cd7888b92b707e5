package dev.exactlyonce.it;

import java.time.Duration;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.operations.MonthlyRow;
import dev.exactlyonce.operations.MonthlyTally;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The monthly table sums every instance's publishes, completions and duplicates, kept in a NATS KV
 * bucket, so an instance started after the others stopped still shows them.
 */
class MonthlyTableIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.operations.tally-interval", "500ms");
	}

	@Test
	void theTableSumsEveryInstanceAndSurvivesTheirRestarts() throws Exception {
		Instance a = this.instances.start("a");
		Instance b = this.instances.start("b");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		a.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-2"), "t-2");
		b.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-1"), "t-1");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.instances.ledger().executionsOf("t-2") == 1);
		b.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-2"), "t-2-copy",
				Map.of("Exactly-Once-Original-Msg-Id", "t-2"));
		MonthlyRow expected = new MonthlyRow(YearMonth.now(ZoneOffset.UTC).toString(), 3, 2, 1, 1, 0, 0.0);

		await().atMost(Duration.ofSeconds(30)).until(() -> a.bean(MonthlyTally.class).rows(),
				(rows) -> rows.equals(List.of(expected)));
		this.instances.close();
		Instance later = this.instances.start("later");

		assertThat(later.bean(MonthlyTally.class).rows()).containsExactly(expected);
	}

}
