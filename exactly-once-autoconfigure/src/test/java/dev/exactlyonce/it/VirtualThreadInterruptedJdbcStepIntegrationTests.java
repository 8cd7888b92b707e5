package dev.exactlyonce.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shutdown's interrupt at 80% comes while a handler's durable step, its side effect done, is
 * journaling DONE on the JDBC store (the record's row busy for a moment). On a virtual thread an
 * interrupt closes the socket of a blocking call, which lost the DONE entry: the step stayed STARTED
 * and the next instance ran the side effect again. The interrupt now waits until the journal write
 * returns. Runs with virtual threads on JDK 25 ({@code scripts/test-jdk25.sh}); on Java 17 it checks
 * the same on platform threads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(OutputCaptureExtension.class)
class VirtualThreadInterruptedJdbcStepIntegrationTests extends NatsIntegrationTestSupport {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

	private PostgresServerProcess postgres;

	private HikariDataSource dataSource;

	@BeforeAll
	void startPostgres() {
		this.postgres = new PostgresServerProcess().start();
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(this.postgres.jdbcUrl());
		this.dataSource.setUsername(this.postgres.user());
	}

	@AfterAll
	void stopPostgres() {
		this.dataSource.close();
		this.postgres.close();
	}

	@Override
	protected void configure(TestInstances instances) {
		instances.with("spring.threads.virtual.enabled", "true")
			.with("exactlyonce.store.type", "jdbc")
			.with("exactlyonce.store.jdbc.initialize-schema", "always")
			.with("spring.datasource.url", this.postgres.jdbcUrl())
			.with("spring.datasource.username", this.postgres.user())
			.with("test.steps.enabled", "true")
			.with("exactlyonce.consumers.steps.stream", "TASKS")
			.with("exactlyonce.consumers.steps.filter-subject", "agents.steps.tasks.>")
			.with("exactlyonce.consumers.steps.ack-wait", "1m")
			.with("exactlyonce.consumers.steps.retry-delay", "1s")
			.with("exactlyonce.store.lease", "1m")
			.with("exactlyonce.listener.shutdown-timeout", SHUTDOWN_TIMEOUT.toSeconds() + "s");
	}

	@Test
	void aStepsSideEffectRunsOnceWhenTheShutdownInterruptMeetsItsJournalWrite(CapturedOutput output) throws Exception {
		this.instances.ledger().close();
		Instance leaving = this.instances.start("leaving", "test.steps.hang-after-commit=true");
		leaving.bean(ExactlyOncePublisher.class).publish("agents.steps.tasks.write", TaskAssignment.of("t-1"), "t-1");
		await().atMost(Duration.ofSeconds(20)).until(() -> this.instances.ledger().commitsOf("t-1").size() == 1);
		Instance staying = this.instances.start("staying");

		try (Connection locker = this.dataSource.getConnection()) {
			locker.setAutoCommit(false);
			try (Statement statement = locker.createStatement()) {
				// the record's row is busy (another instance's scan, a vacuum, a slow disk...)
				statement.executeQuery("SELECT record_key FROM exactlyonce_record FOR UPDATE").close();
			}
			this.instances.ledger().open(); // the commit step's side effect is done: its DONE entry is journaled now
			await().atMost(Duration.ofSeconds(10)).until(this::aWriteWaitsForTheRow);
			CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> leaving.context().close());
			await().atMost(SHUTDOWN_TIMEOUT)
				.until(() -> output.getAll().contains("interrupting their handlers so their messages go to another"));
			locker.rollback();
			closed.get();
		}

		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(30)).until(() -> probe.drained("TASKS", "steps"));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !staying.recorder().outcomes().isEmpty()
				|| !leaving.recorder().outcomes().isEmpty());
		assertThat(this.instances.ledger().commitsOf("t-1")).as("commits of t-1 (a side effect of a durable step)")
			.hasSize(1);
	}

	private boolean aWriteWaitsForTheRow() throws SQLException {
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement();
				ResultSet waiting = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted")) {
			return waiting.next() && waiting.getInt(1) > 0;
		}
	}

}
