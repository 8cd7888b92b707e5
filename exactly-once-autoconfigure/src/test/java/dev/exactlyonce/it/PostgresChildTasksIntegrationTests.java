package dev.exactlyonce.it;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.test.PostgresServerProcess;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Child tasks on the JDBC store in PostgreSQL (one server for the class), and transactional
 * children: a child's result is journaled and sent to its parent inside the transaction that writes
 * its rows and its completion record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresChildTasksIntegrationTests extends AbstractChildTasksIntegrationTests {

	private PostgresServerProcess postgres;

	private HikariDataSource dataSource;

	@BeforeAll
	void startDatabaseWithPosts() {
		this.postgres = new PostgresServerProcess().start();
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(this.postgres.jdbcUrl());
		this.dataSource.setUsername(this.postgres.user());
		new JdbcTemplate(this.dataSource)
			.execute("CREATE TABLE posts (task_id VARCHAR(100) NOT NULL, instance VARCHAR(100) NOT NULL)");
	}

	@AfterAll
	void stopDatabase() {
		this.dataSource.close();
		this.postgres.close();
	}

	@Override
	protected void configureStore(TestInstances instances) {
		instances.withTransactionalPosts()
			.with("spring.datasource.url", this.postgres.jdbcUrl())
			.with("spring.datasource.username", this.postgres.user());
	}

	@Test
	void transactionalChildrenSendTheirResultsWithTheirCommittedRows() throws Exception {
		Instance instance = this.instances.start("a", "test.children.posts=true", "test.children.count=2");
		publish(instance, "c-tx");

		IdempotencyRecord completed = awaitParent(instance, "c-tx", RecordState.COMPLETED);
		assertThat(completed.resultSummary()).isEqualTo("done post for c-tx-post-0,post for c-tx-post-1");
		for (String child : new String[] { "c-tx-post-0", "c-tx-post-1" }) {
			IdempotencyRecord record = awaitRecord(instance, "posts:" + child, RecordState.COMPLETED);
			assertThat(record.journal().find("exactlyonce.result")).as(child).get()
				.satisfies((entry) -> assertThat(entry.state()).isEqualTo(StepState.DONE));
			assertThat(posts(this.dataSource, child)).as("rows of " + child).isOne();
		}
	}

	private static Integer posts(DataSource dataSource, String taskId) {
		return new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?", Integer.class,
				taskId);
	}

}
