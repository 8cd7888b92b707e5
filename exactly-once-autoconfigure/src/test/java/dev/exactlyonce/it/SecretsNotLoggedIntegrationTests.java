package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.nats.client.NKey;
import io.nats.client.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.RedisServerProcess;
import dev.exactlyonce.test.SelfSignedCertificate;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With every logger at DEBUG (Spring, Lettuce, Netty, the NATS client through java.util.logging,
 * the starter), processing tasks while each secret is in use logs none of them — NATS password,
 * token, NKey seed, credentials file (user JWT and seed), Redis password — and no task payload,
 * not even of a poison message.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsNotLoggedIntegrationTests {

	private static final String PAYLOAD_MARKER = "payload-marker-6c1e";

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	private final SelfSignedCertificate certificate = SelfSignedCertificate.create();

	private Level julLevel;

	@BeforeEach
	void everyJulLoggerAtDebug() {
		this.julLevel = Logger.getLogger("").getLevel();
		Logger.getLogger("").setLevel(Level.FINEST);
	}

	@AfterEach
	void close() throws Exception {
		Logger.getLogger("").setLevel(this.julLevel);
		this.certificate.close();
	}

	@Test
	void natsPasswordAndRedisPasswordOverTls(CapturedOutput output) throws Exception {
		RedisServerProcess redis = RedisServerProcess.withTlsAndPassword(this.certificate, "redis-pw-31ab");
		this.resources.add(redis);
		redis.start();
		TestInstances instances = instances("tls { cert_file: \"" + this.certificate.certificate() + "\", key_file: \""
				+ this.certificate.privateKey() + "\" }\nauthorization { user: agent, password: \"nats-pw-77qz\" }");
		Instance instance = instances.start("a", "exactlyonce.nats.username=agent", "exactlyonce.nats.password=nats-pw-77qz",
				"exactlyonce.nats.tls.bundle=local", "exactlyonce.store.type=redis",
				"spring.ssl.bundle.pem.local.truststore.certificate=file:" + this.certificate.certificate(),
				"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"spring.data.redis.password=redis-pw-31ab", "spring.data.redis.ssl.bundle=local",
				"spring.data.redis.timeout=2s", "exactlyonce.nats.connection-timeout=20s");
		processTaskAndPoison(instances, instance);
		assertNotLogged(output, "nats-pw-77qz", "redis-pw-31ab", PAYLOAD_MARKER);
	}

	@Test
	void natsToken(CapturedOutput output) throws Exception {
		TestInstances instances = instances("authorization { token: \"nats-token-5kx0\" }");
		Instance instance = instances.start("a", "exactlyonce.nats.token=nats-token-5kx0");
		processTaskAndPoison(instances, instance);
		assertNotLogged(output, "nats-token-5kx0", PAYLOAD_MARKER);
	}

	@Test
	void natsNkeySeed(CapturedOutput output) throws Exception {
		NKey user = NKey.createUser(null);
		String seed = new String(user.getSeed());
		Path seedFile = Files.writeString(this.certificate.certificate().resolveSibling("user.nk"), seed);
		TestInstances instances = instances("authorization { users = [ { nkey: " + new String(user.getPublicKey()) + " } ] }");
		Instance instance = instances.start("a", "exactlyonce.nats.nkey-file=" + seedFile);
		processTaskAndPoison(instances, instance);
		assertNotLogged(output, seed, PAYLOAD_MARKER);
	}

	@Test
	void natsCredentialsFile(CapturedOutput output) throws Exception {
		OperatorCredentials operator = OperatorCredentials.create(this.certificate.certificate().getParent());
		TestInstances instances = instances(operator.serverConfiguration());
		Instance instance = instances.start("a", "exactlyonce.nats.credentials-file=" + operator.credentialsFile());
		processTaskAndPoison(instances, instance);
		assertNotLogged(output, operator.userSeed(), operator.userJwt(), PAYLOAD_MARKER);
	}

	private void processTaskAndPoison(TestInstances instances, Instance instance) throws Exception {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.marketing.tasks.blog-post",
					new TaskAssignment("t-quiet", "marketing", "blog-post", Map.of("brief", PAYLOAD_MARKER)), "t-quiet");
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.marketing.tasks.blog-post", ("{\"taskId\": \"t-poison\", " + PAYLOAD_MARKER).getBytes(StandardCharsets.UTF_8), "t-poison");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.bean(IdempotencyStore.class)
				.find("worker:t-quiet")
				.filter((record) -> record.state() == RecordState.COMPLETED)
				.isPresent()
					&& instance.bean(Connection.class).jetStreamManagement()
						.getStreamInfo("DEAD_LETTERS").getStreamState().getMsgCount() == 1);
		assertThat(instances.ledger().executionsOf("t-quiet")).isEqualTo(1);
	}

	private static void assertNotLogged(CapturedOutput output, String... secrets) {
		assertThat(output.getAll()).as("DEBUG output was captured").contains("DEBUG");
		for (String secret : secrets) {
			assertThat(output.getAll()).as("log").doesNotContain(secret);
		}
	}

	private TestInstances instances(String configuration) {
		NatsServerProcess nats = NatsServerProcess.withConfiguration(configuration + "\n");
		this.resources.add(nats);
		nats.start();
		TestInstances instances = new TestInstances(nats).with("logging.level.root", "DEBUG")
			.with("logging.level.dev.exactlyonce", "DEBUG");
		this.resources.add(instances);
		return instances;
	}

}
