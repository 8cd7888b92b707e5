package dev.exactlyonce.it;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.testapp.TransactionalPostHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ExactlyOnceListener(transactional = true)} on the JDBC store in a real PostgreSQL: the
 * handler's row in the application's database and the completion record commit together, and
 * neither commits when the handler fails or its claim was taken over (a zombie). Rows are counted
 * in the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionalCompletionIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.posts.tasks.write";

	private PostgresServerProcess postgres;

	private HikariDataSource dataSource;

	@BeforeAll
	void startPostgres() {
		this.postgres = new PostgresServerProcess().start();
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(this.postgres.jdbcUrl());
		this.dataSource.setUsername(this.postgres.user());
		new JdbcTemplate(this.dataSource).execute("CREATE TABLE posts (task_id TEXT NOT NULL, instance TEXT NOT NULL)");
	}

	@AfterAll
	void stopPostgres() {
		this.dataSource.close();
		this.postgres.close();
	}

	@Override
	protected void configure(TestInstances instances) {
		instances.withTransactionalPosts()
			.with("spring.datasource.url", this.postgres.jdbcUrl())
			.with("spring.datasource.username", this.postgres.user())
			.with("exactlyonce.consumers.posts.max-deliver", "5");
	}

	@Test
	void theHandlersRowAndTheCompletionRecordCommitTogetherAndTheAckFollows() throws Exception {
		Instance instance = this.instances.start("a");

		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-commit"), "t-commit");

		awaitDrained(instance, DeliveryOutcome.PROCESSED);
		assertThat(postsOf("t-commit")).isOne();
		assertThat(instance.bean(IdempotencyStore.class).find("posts:t-commit").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
	}

	@Test
	void aHandlerFailureRollsBackItsRowAndTheRetryCommitsOneRow() throws Exception {
		Instance instance = this.instances.start("a", "test.failures=1",
				"exactlyonce.consumers.posts.backoff=1s,1s,1s");

		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-retry"), "t-retry");

		awaitDrained(instance, DeliveryOutcome.PROCESSED);
		assertThat(this.instances.ledger().startedOf("t-retry")).isEqualTo(2);
		assertThat(postsOf("t-retry")).as("rows in the database after a failed and a successful attempt").isOne();
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.RETRIED, DeliveryOutcome.PROCESSED);
	}

	@Test
	void aStepsDatabaseWriteRolledBackWithAFailedAttemptIsWrittenAgainByTheRetry() throws Exception {
		Instance instance = this.instances.start("a", "test.failures=1", "test.posts.in-step=true",
				"exactlyonce.consumers.posts.backoff=1s,1s,1s");

		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-step"), "t-step");

		awaitDrained(instance, DeliveryOutcome.PROCESSED);
		assertThat(instance.bean(TransactionalPostHandler.class).stepRuns()).as("step action runs").isEqualTo(2);
		assertThat(postsOf("t-step")).as("rows after a rolled-back and a committed attempt").isOne();
		IdempotencyRecord record = instance.bean(IdempotencyStore.class).find("posts:t-step").orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.journal().steps()).singleElement()
			.satisfies((step) -> assertThat(step.state()).isEqualTo(StepState.DONE))
			.satisfies((step) -> assertThat(step.attempt()).isEqualTo(2));
	}

	@Test
	void aLeaseRenewalDueWhileTheStepsAndTheRecordAreWrittenInTheTransactionNeitherDeadlocksNorStalls()
			throws Exception {
		Instance instance = this.instances.start("a", "test.posts.in-step=true", "test.posts.summary-delay=1500ms",
				"exactlyonce.store.lease=3s", "exactlyonce.consumers.posts.ack-wait=2s",
				"exactlyonce.consumers.posts.working-ack-interval=500ms");

		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-renewed"), "t-renewed");

		awaitDrained(instance, DeliveryOutcome.PROCESSED);
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(postsOf("t-renewed")).isOne();
		assertThat(instance.bean(IdempotencyStore.class).find("posts:t-renewed").orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void aZombieCommitsNeitherItsRowNorItsCompletion() throws Exception {
		Instance zombie = this.instances.start("zombie", "exactlyonce.consumers.posts.ack-wait=2s",
				"exactlyonce.store.lease=3s");
		IdempotencyStore store = zombie.bean(IdempotencyStore.class);
		this.instances.ledger().close();
		zombie.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-zombie"), "t-zombie");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf("t-zombie") == 1);

		zombie.storeFaults().blockRenewals();
		ClaimResult[] takeover = new ClaimResult[1];
		await().atMost(Duration.ofSeconds(15)).until(() -> {
			takeover[0] = store.tryClaim("posts:t-zombie", "successor", Duration.ofMinutes(1));
			return takeover[0] instanceof ClaimResult.Acquired;
		});
		this.instances.ledger().open();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> zombie.recorder().outcomes().contains(DeliveryOutcome.CLAIM_LOST));

		assertThat(postsOf("t-zombie")).as("the zombie's row was rolled back with its completion").isZero();
		IdempotencyRecord record = store.find("posts:t-zombie").orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.owner()).isEqualTo("successor");
		assertThat(zombie.recorder().outcomes()).doesNotContain(DeliveryOutcome.PROCESSED);
	}

	private void awaitDrained(Instance instance, DeliveryOutcome last) throws Exception {
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> instance.recorder().outcomes().contains(last) && probe.drained("TASKS", "posts"));
		}
	}

	private int postsOf(String taskId) {
		return new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?",
				Integer.class, taskId);
	}

}
