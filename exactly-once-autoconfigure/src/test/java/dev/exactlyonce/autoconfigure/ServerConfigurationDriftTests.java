package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.Mirror;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.actuate.ExactlyOnceHealthIndicator;
import dev.exactlyonce.actuate.autoconfigure.ExactlyOnceHealthContributorAutoConfiguration;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.provision.ProvisioningException;
import dev.exactlyonce.test.NatsServerProcess;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket or stream that already exists on the server is checked for every setting the pipeline
 * relies on: start-up fails naming the bucket or stream, the setting, both values and the fix when
 * one would lose records, refuse writes or break publishing; harmless differences are logged.
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerConfigurationDriftTests {

	private static final AtomicInteger names = new AtomicInteger();

	private static NatsServerProcess nats;

	private static Connection connection;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ExactlyOnceNatsAutoConfiguration.class,
				ExactlyOnceStoreAutoConfiguration.class, ExactlyOnceAutoConfiguration.class,
				ExactlyOnceHealthContributorAutoConfiguration.class));

	private final int n = names.incrementAndGet();

	@BeforeAll
	static void startNats() throws Exception {
		nats = new NatsServerProcess().start();
		connection = Nats.connect(nats.url());
	}

	@AfterAll
	static void stopNats() throws Exception {
		connection.close();
		nats.close();
	}

	@Test
	void memoryBucketFailsStartup() throws Exception {
		createBucket(KeyValueConfiguration.builder().storageType(StorageType.Memory));
		assertBucketStartupFailure("storage: server memory, declared file",
				"records are lost when the server restarts", "exactlyonce.store.nats-kv.storage");
	}

	@Test
	void bucketRefusingRecordsBySizeFailsStartup() throws Exception {
		createBucket(KeyValueConfiguration.builder().maxValueSize(64));
		assertBucketStartupFailure("max value size: server 64 bytes", "every claim would be refused");
	}

	@Test
	void bucketWithFewerReplicasThanDeclaredFailsStartup() throws Exception {
		createBucket(KeyValueConfiguration.builder());
		assertBucketStartupFailure(new String[] { "exactlyonce.store.nats-kv.replicas=3" },
				"replicas: server 1, declared 3", "exactlyonce.store.nats-kv.replicas");
	}

	@Test
	void bucketKeepingMoreHistoryFailsStartup() throws Exception {
		createBucket(KeyValueConfiguration.builder().maxHistoryPerKey(5));
		assertBucketStartupFailure("history: server 5, declared 1", "superseded values",
				"KV_b" + this.n + "'s max messages per subject to 1");
	}

	@Test
	void bucketChangedWhileRunningMakesHealthDown() throws Exception {
		this.runner.withPropertyValues(declaration()).run((context) -> {
			assertThat(context.getBean(ExactlyOnceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			connection.keyValueManagement().delete("b" + this.n);
			createBucket(KeyValueConfiguration.builder().storageType(StorageType.Memory));
			Health health = context.getBean(ExactlyOnceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("problems").toString()).contains("Idempotency bucket 'b" + this.n + "'")
				.contains("storage: server memory, declared file")
				.contains("allow_rollup_hdrs: true");
		});
	}

	@Test
	void deadLetterStreamWithAMessageSizeLimitFailsValidation() throws Exception {
		management().addStream(deadLetterStream().maxMsgSize(64).build());
		this.runner.withPropertyValues(declaration("exactlyonce.provisioning.mode=validate"))
			.run((context) -> assertThat(NatsContextRunnerTestSupport.cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("Stream 'DL" + this.n + "'")
				.hasMessageContaining("max_msg_size: server 64, declared unlimited"));
	}

	@Test
	void deadLetterStreamWithAMessageSizeLimitIsUpdated() throws Exception {
		management().addStream(deadLetterStream().maxMsgSize(64).build());
		this.runner.withPropertyValues(declaration()).run((context) -> assertThat(context).hasNotFailed());
		assertThat(management().getStreamInfo("DL" + this.n).getConfiguration().getMaxMsgSize()).isEqualTo(-1);
	}

	@Test
	void taskStreamWithoutPublishAcksFailsValidation() throws Exception {
		management().addStream(taskStream().noAck(true).build());
		this.runner
			.withPropertyValues(declaration("exactlyonce.provisioning.mode=validate", "exactlyonce.dead-letter.stream="))
			.run((context) -> assertThat(NatsContextRunnerTestSupport.cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("Stream 'S" + this.n + "'")
				.hasMessageContaining("no_ack: server true, declared false"));
	}

	@Test
	void taskStreamThatIsAMirrorFailsStartup() throws Exception {
		management()
			.addStream(StreamConfiguration.builder().name("ORIGIN" + this.n).subjects("o" + this.n + ".>").build());
		management().addStream(StreamConfiguration.builder()
			.name("S" + this.n)
			.mirror(Mirror.builder().sourceName("ORIGIN" + this.n).build())
			.build());
		this.runner.withPropertyValues(declaration())
			.run((context) -> assertThat(NatsContextRunnerTestSupport.cause(context.getStartupFailure(), ProvisioningException.class))
				.hasMessageContaining("Stream 'S" + this.n + "'")
				.hasMessageContaining("mirror: server ORIGIN" + this.n + ", declared none"));
	}

	@Test
	void taskStreamDenyingDeletesOnlyWarnsAndKeepsItThroughAnUpdate(CapturedOutput output) throws Exception {
		management().addStream(taskStream().denyDelete(true).allowRollup(true).maxAge(Duration.ofDays(1)).build());
		this.runner.withPropertyValues(declaration()).run((context) -> assertThat(context).hasNotFailed());
		StreamConfiguration updated = management().getStreamInfo("S" + this.n).getConfiguration();
		assertThat(updated.getMaxAge()).as("declared max-age applied").isEqualTo(Duration.ZERO);
		assertThat(updated.getDenyDelete()).as("server's deny_delete kept").isTrue();
		assertThat(output).contains("Stream 'S" + this.n + "'")
			.contains("deny_delete: server true")
			.contains("allow_rollup: server true");
	}

	private void assertBucketStartupFailure(String... messageParts) {
		assertBucketStartupFailure(new String[0], messageParts);
	}

	private void assertBucketStartupFailure(String[] extras, String... messageParts) {
		this.runner.withPropertyValues(declaration(extras)).run((context) -> {
			Throwable error = NatsContextRunnerTestSupport.cause(context.getStartupFailure(), ExactlyOnceConfigurationException.class);
			assertThat(error).hasMessageContaining("Idempotency bucket 'b" + this.n + "'");
			for (String part : messageParts) {
				assertThat(error).hasMessageContaining(part);
			}
		});
	}

	private void createBucket(KeyValueConfiguration.Builder builder) throws Exception {
		connection.keyValueManagement().create(builder.name("b" + this.n).ttl(Duration.ofHours(72)).build());
	}

	private StreamConfiguration.Builder taskStream() {
		return StreamConfiguration.builder().name("S" + this.n).subjects("s" + this.n + ".>");
	}

	private StreamConfiguration.Builder deadLetterStream() {
		return StreamConfiguration.builder()
			.name("DL" + this.n)
			.subjects("dl" + this.n + ".>")
			.maxAge(Duration.ofDays(30))
			.duplicateWindow(Duration.ofMinutes(2));
	}

	private static JetStreamManagement management() throws Exception {
		return connection.jetStreamManagement();
	}

	/** Stream S<n>, consumer c<n>, dead-letter stream DL<n> on dl<n>.>, bucket b<n>. */
	private String[] declaration(String... extras) {
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + nats.url(),
				"exactlyonce.streams.S" + this.n + ".subjects=s" + this.n + ".>",
				"exactlyonce.consumers.c" + this.n + ".stream=S" + this.n,
				"exactlyonce.dead-letter.stream=DL" + this.n, "exactlyonce.dead-letter.subject-prefix=dl" + this.n,
				"exactlyonce.store.nats-kv.bucket=b" + this.n));
		properties.addAll(List.of(extras));
		return properties.toArray(String[]::new);
	}

}
