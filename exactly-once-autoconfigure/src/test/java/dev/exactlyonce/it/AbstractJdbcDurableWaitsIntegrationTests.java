package dev.exactlyonce.it;

import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;
import dev.exactlyonce.testapp.TransactionalPostHandler;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable waits on the JDBC store in a real database (one server for the class; expired records
 * purged every second), and a transactional listener's wait: the rows it wrote before the wait
 * commit with its WAITING record and are not written again when it resumes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	private HikariDataSource dataSource;

	/** Starts the database server. */
	protected abstract void startDatabase();

	/** Stops the database server. */
	protected abstract void stopDatabase();

	/** The database's JDBC URL. */
	protected abstract String jdbcUrl();

	/** A user of the database. */
	protected abstract String user();

	@BeforeAll
	void startDatabaseWithPosts() {
		startDatabase();
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(jdbcUrl());
		this.dataSource.setUsername(user());
		new JdbcTemplate(this.dataSource).execute("CREATE TABLE posts (task_id VARCHAR(100) NOT NULL, instance VARCHAR(100) NOT NULL)");
	}

	@AfterAll
	void stopDatabaseAndPosts() {
		this.dataSource.close();
		stopDatabase();
	}

	@Override
	protected void configureStore(TestInstances instances) {
		instances.withTransactionalPosts()
			.with("spring.datasource.url", jdbcUrl())
			.with("spring.datasource.username", user())
			.with("exactlyonce.store.jdbc.purge-interval", "1s");
	}

	@Override
	protected List<String> shortTtlProperties() {
		return List.of("exactlyonce.consumers.posts.max-deliver=-1");
	}

	@Test
	void aTransactionalListenersRowsCommitWithItsWaitingRecordAndAreNotWrittenAgainWhenItResumes() throws Exception {
		Instance instance = this.instances.start("a", "test.posts.in-step=true", "test.posts.await-approval=1h");
		instance.bean(ExactlyOncePublisher.class).publish("agents.posts.tasks.write", TaskAssignment.of("t-tx"), "t-tx");

		IdempotencyRecord waiting = awaitRecord(instance, "posts:t-tx", RecordState.WAITING);
		assertThat(waiting.journal().find("insert")).get().extracting(StepRecord::state).isEqualTo(StepState.DONE);
		assertThat(postsOf("t-tx")).as("the row, committed with the WAITING record").isOne();

		assertThat(instance.bean(ExactlyOnceSignals.class).signal("posts", "t-tx", "approval", true, "s-tx"))
			.isEqualTo(SignalOutcome.RESUMED);
		IdempotencyRecord completed = awaitRecord(instance, "posts:t-tx", RecordState.COMPLETED);
		assertThat(completed.journal().find("approval")).get().extracting(StepRecord::state).isEqualTo(StepState.DONE);
		assertThat(postsOf("t-tx")).isOne();
		assertThat(instance.bean(TransactionalPostHandler.class).stepRuns()).isOne();
	}

	private int postsOf(String taskId) {
		return new JdbcTemplate(this.dataSource).queryForObject("SELECT COUNT(*) FROM posts WHERE task_id = ?",
				Integer.class, taskId);
	}

}
