package dev.exactlyonce.it;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.MariaDbServerProcess;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.testapp.TransactionalPostHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * Transactional listeners at the isolation levels of the application's pool: on MariaDB at READ
 * COMMITTED, REPEATABLE READ (its default) and SERIALIZABLE a handler that outlives several lease
 * renewals completes once; on PostgreSQL above READ COMMITTED start-up is refused with the reason,
 * since the completion would fail on every attempt. A handler that reads before its durable step
 * runs the step once at every level start-up accepts, on both databases.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionIsolationIntegrationTests extends NatsIntegrationTestSupport {

	private static final String SUBJECT = "agents.posts.tasks.write";

	private PostgresServerProcess postgres;

	private MariaDbServerProcess mariaDb;

	private HikariDataSource mariaDbPosts;

	private HikariDataSource postgresPosts;

	@BeforeAll
	void startDatabases() {
		this.postgres = new PostgresServerProcess().start();
		this.mariaDb = new MariaDbServerProcess().start();
		this.mariaDbPosts = new HikariDataSource();
		this.mariaDbPosts.setJdbcUrl(this.mariaDb.jdbcUrl());
		this.mariaDbPosts.setUsername("root");
		new JdbcTemplate(this.mariaDbPosts).execute("CREATE TABLE posts (task_id VARCHAR(64) NOT NULL, "
				+ "instance VARCHAR(64) NOT NULL)");
		this.postgresPosts = new HikariDataSource();
		this.postgresPosts.setJdbcUrl(this.postgres.jdbcUrl());
		this.postgresPosts.setUsername(this.postgres.user());
		new JdbcTemplate(this.postgresPosts).execute("CREATE TABLE posts (task_id TEXT NOT NULL, instance TEXT NOT NULL)");
	}

	@AfterAll
	void stopDatabases() {
		this.mariaDbPosts.close();
		this.postgresPosts.close();
		this.mariaDb.close();
		this.postgres.close();
	}

	@Override
	protected void configure(TestInstances instances) {
		instances.withTransactionalPosts()
			.with("exactlyonce.store.lease", "3s")
			.with("exactlyonce.consumers.posts.ack-wait", "2s")
			.with("exactlyonce.consumers.posts.working-ack-interval", "500ms");
	}

	@ParameterizedTest
	@ValueSource(strings = { "TRANSACTION_READ_COMMITTED", "TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE" })
	void onMariaDbAHandlerOutlivingLeaseRenewalsCompletesOnce(String isolation) throws Exception {
		String taskId = "t-" + isolation.toLowerCase().replace('_', '-');
		Instance instance = this.instances.start("a", "spring.datasource.url=" + this.mariaDb.jdbcUrl(),
				"spring.datasource.username=root", "spring.datasource.hikari.transaction-isolation=" + isolation);
		this.instances.ledger().close();
		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.instances.ledger().startedOf(taskId) == 1);
		int before = instance.recorder().workingAcks();
		await().atMost(Duration.ofSeconds(10)).until(() -> instance.recorder().workingAcks() >= before + 4);
		this.instances.ledger().open();

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes()
				.contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "posts"));
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(new JdbcTemplate(this.mariaDbPosts).queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?",
				Integer.class, taskId)).isOne();
		assertThat(instance.bean(IdempotencyStore.class).find("posts:" + taskId).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
	}

	@ParameterizedTest
	@CsvSource({ "mariadb, TRANSACTION_READ_UNCOMMITTED", "mariadb, TRANSACTION_READ_COMMITTED",
			"mariadb, TRANSACTION_REPEATABLE_READ", "mariadb, TRANSACTION_SERIALIZABLE",
			"postgresql, TRANSACTION_READ_UNCOMMITTED", "postgresql, TRANSACTION_READ_COMMITTED" })
	void aHandlerThatReadsBeforeItsStepRunsTheStepOnce(String database, String isolation) throws Exception {
		String taskId = "t-read-" + database + "-" + isolation.toLowerCase().replace('_', '-');
		boolean mariaDb = database.equals("mariadb");
		Instance instance = this.instances.start("a",
				"spring.datasource.url=" + (mariaDb ? this.mariaDb.jdbcUrl() : this.postgres.jdbcUrl()),
				"spring.datasource.username=" + (mariaDb ? "root" : this.postgres.user()),
				"spring.datasource.hikari.transaction-isolation=" + isolation, "test.posts.in-step=true",
				"test.posts.read-first=true");

		instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of(taskId), taskId);

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> instance.recorder().outcomes()
				.contains(DeliveryOutcome.PROCESSED) && probe.drained("TASKS", "posts"));
		}
		assertThat(instance.recorder().outcomes()).containsExactly(DeliveryOutcome.PROCESSED);
		assertThat(instance.bean(TransactionalPostHandler.class).stepRuns()).as("step action runs").isOne();
		assertThat(new JdbcTemplate(mariaDb ? this.mariaDbPosts : this.postgresPosts)
			.queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?", Integer.class, taskId)).isOne();
	}

	@ParameterizedTest
	@ValueSource(strings = { "TRANSACTION_REPEATABLE_READ", "TRANSACTION_SERIALIZABLE" })
	void onPostgresqlATransactionalListenerAboveReadCommittedFailsStartupSayingWhy(String isolation) {
		assertThatException()
			.isThrownBy(() -> this.instances.start("a", "spring.datasource.url=" + this.postgres.jdbcUrl(),
					"spring.datasource.username=" + this.postgres.user(),
					"spring.datasource.hikari.transaction-isolation=" + isolation))
			.satisfies((ex) -> assertThat(rootCause(ex)).isInstanceOf(ExactlyOnceConfigurationException.class)
				.hasMessageContaining("is transactional, but its PostgreSQL transactions run at")
				.hasMessageContaining("could not serialize access due to concurrent update")
				.hasMessageContaining("Run the DataSource at READ COMMITTED"));
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return cause;
	}

}
