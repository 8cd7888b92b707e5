package dev.exactlyonce.sample;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.PostgresServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample with {@code --spring.profiles.active=jdbc}, against its own PostgreSQL: the records
 * are in the JDBC store and the marketing agent's post is one row of {@code posts}, written in the
 * transaction of its completion record.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@ActiveProfiles("jdbc")
class SampleOnPostgresIntegrationTests extends SampleStoreProfileSupport {

	private static final NatsServerProcess nats = new NatsServerProcess().start();

	private static final PostgresServerProcess postgres = new PostgresServerProcess().start();

	@Autowired
	JdbcClient jdbc;

	SampleOnPostgresIntegrationTests() {
		super("jdbc");
	}

	@DynamicPropertySource
	static void postgresProperties(DynamicPropertyRegistry registry) {
		registry.add("exactlyonce.nats.servers", nats::url);
		registry.add("spring.datasource.url", postgres::jdbcUrl);
		registry.add("spring.datasource.username", postgres::user);
	}

	/** The task runs once, and its post is one row of {@code posts}. */
	@Test
	@Override
	void taskRunsOnceWithItsRecordInTheProfilesStore() throws Exception {
		super.taskRunsOnceWithItsRecordInTheProfilesStore();
		assertThat(this.jdbc.sql("SELECT task_id, commit_sha FROM posts").query().listOfRows()).singleElement()
			.satisfies((row) -> {
				assertThat(row.get("task_id")).isEqualTo("t-store");
				assertThat((String) row.get("commit_sha")).matches("[0-9a-f]{40}");
			});
	}

	@AfterAll
	static void stopServers() {
		postgres.close();
		nats.close();
	}

}
