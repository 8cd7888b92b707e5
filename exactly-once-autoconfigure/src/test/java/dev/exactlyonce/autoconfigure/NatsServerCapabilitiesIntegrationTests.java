package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.PriorityPolicy;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.exactlyonce.nats.NatsServerCapabilities;
import dev.exactlyonce.nats.ServerFeature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The starter reads the connected nats-server's version at start-up, knows which features newer
 * than 2.9 that server offers, and logs once which of them it uses (none: see
 * docs/compatibility.md). Runs on whichever server {@code NATS_SERVER_BIN} names; each detected feature
 * is checked against what that server actually does with it, and so is what docs/compatibility.md says of
 * per-message TTL (it expires a message, and cannot keep one past the stream's max age).
 */
@ExtendWith(OutputCaptureExtension.class)
class NatsServerCapabilitiesIntegrationTests extends NatsContextRunnerTestSupport {

	private static final String SUMMARY = "uses nothing newer than nats-server 2.9";

	@Test
	void startupLogsTheServerVersionAndTheCapabilitiesUsedOnce(CapturedOutput output) {
		this.runner.withPropertyValues("exactlyonce.nats.servers=" + nats.url(), "exactlyonce.store.type=memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String version = context.getBean(Connection.class).getServerInfo().getVersion();
				NatsServerCapabilities capabilities = context.getBean(NatsServerCapabilities.class);
				assertThat(capabilities.version()).isEqualTo(version);
				String[] lines = Arrays.stream(output.getAll().split("\\R"))
					.filter((line) -> line.contains(SUMMARY))
					.toArray(String[]::new);
				assertThat(lines).as("start-up lines naming the server's capabilities").hasSize(1);
				assertThat(lines[0]).contains("INFO", "nats-server " + version, "optional capabilities used: none");
				if (capabilities.offered().isEmpty()) {
					assertThat(lines[0]).contains("offers none of the newer features weighed in docs/compatibility.md");
				}
				for (ServerFeature feature : capabilities.offered()) {
					assertThat(lines[0]).contains(feature.description() + " (" + feature.since() + ")");
				}
			});
	}

	@Test
	void theFeaturesDetectedAreTheOnesTheServerHonours() throws Exception {
		try (Connection connection = Nats.connect(nats.url())) {
			NatsServerCapabilities capabilities = NatsServerCapabilities.of(connection.getServerInfo());
			JetStreamManagement management = connection.jetStreamManagement();
			Set<ServerFeature> honoured = EnumSet.noneOf(ServerFeature.class);
			honour(honoured, ServerFeature.PER_MESSAGE_TTL, management, "TTL",
					(builder) -> builder.allowMessageTtl(true), StreamConfiguration::getAllowMessageTtl);
			honour(honoured, ServerFeature.SUBJECT_DELETE_MARKERS, management, "MARKERS",
					(builder) -> builder.allowMessageTtl(true).subjectDeleteMarkerTtl(Duration.ofMinutes(1)),
					(config) -> config.getSubjectDeleteMarkerTtl() != null);
			honour(honoured, ServerFeature.ATOMIC_BATCH_PUBLISH, management, "ATOMIC",
					(builder) -> builder.allowAtomicPublish(true), StreamConfiguration::getAllowAtomicPublish);
			honour(honoured, ServerFeature.MESSAGE_SCHEDULES, management, "SCHEDULES",
					(builder) -> builder.allowMessageSchedules(true), StreamConfiguration::getAllowMsgSchedules);
			honour(honoured, ServerFeature.MESSAGE_COUNTERS, management, "COUNTERS",
					(builder) -> builder.allowMessageCounter(true), StreamConfiguration::getAllowMessageCounter);
			honour(honoured, ServerFeature.FAST_INGEST_BATCH, management, "BATCHED",
					(builder) -> builder.allowBatched(true), StreamConfiguration::getAllowBatched);
			ConsumerConfiguration pinned = management.addOrUpdateConsumer("ATOMIC", ConsumerConfiguration.builder()
				.durable("pinned")
				.priorityPolicy(PriorityPolicy.PinnedClient)
				.priorityGroups("workers")
				.build()).getConsumerConfiguration();
			if (pinned.getPriorityPolicy() == PriorityPolicy.PinnedClient) {
				honoured.add(ServerFeature.PRIORITY_GROUPS);
			}
			if (checksAnotherSubjectsSequence(connection, management)) {
				honoured.add(ServerFeature.EXPECTED_LAST_SUBJECT_SEQUENCE_SUBJECT);
			}
			assertThat(capabilities.offered()).as("features of nats-server %s", capabilities.version())
				.containsExactlyInAnyOrderElementsOf(honoured);
			if (honoured.contains(ServerFeature.PER_MESSAGE_TTL)) {
				connection.jetStream().publish("TTL.short", new byte[] { 1 },
						PublishOptions.builder().messageTtlSeconds(1).build());
				awaitRemoved(management, "TTL", "TTL.short");
				// a TTL cannot keep a message past the stream's max age: per-message TTL only shortens
				management.addStream(StreamConfiguration.builder()
					.name("CAPPED")
					.subjects("CAPPED.>")
					.maxAge(Duration.ofSeconds(2))
					.allowMessageTtl(true)
					.build());
				connection.jetStream().publish("CAPPED.long", new byte[] { 1 },
						PublishOptions.builder().messageTtlCustom("1h").build());
				awaitRemoved(management, "CAPPED", "CAPPED.long");
			}
		}
	}

	private static void awaitRemoved(JetStreamManagement management, String stream, String subject) {
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThatExceptionOfType(JetStreamApiException.class)
			.isThrownBy(() -> management.getLastMessage(stream, subject)));
	}

	/** Declares a stream with a feature switched on and notes the feature when the server kept the switch. */
	private static void honour(Set<ServerFeature> honoured, ServerFeature feature, JetStreamManagement management,
			String stream, Function<StreamConfiguration.Builder, StreamConfiguration.Builder> switchOn,
			Function<StreamConfiguration, Boolean> kept) throws Exception {
		StreamConfiguration declared = switchOn.apply(StreamConfiguration.builder().name(stream).subjects(stream + ".>"))
			.build();
		if (kept.apply(management.addStream(declared).getConfiguration())) {
			honoured.add(feature);
		}
	}

	/**
	 * Whether the server checks {@code Nats-Expected-Last-Subject-Sequence} against the subject
	 * named in {@code Nats-Expected-Last-Subject-Sequence-Subject} (a server that does not know the
	 * header checks the published subject, which is empty, and stores the message).
	 */
	private static boolean checksAnotherSubjectsSequence(Connection connection, JetStreamManagement management)
			throws Exception {
		management.addStream(StreamConfiguration.builder().name("EXPECT").subjects("EXPECT.>").build());
		connection.jetStream().publish("EXPECT.other", new byte[] { 1 });
		try {
			connection.jetStream().publish("EXPECT.mine", new byte[] { 2 }, PublishOptions.builder()
				.expectedLastSubjectSequence(0)
				.expectedLastSubjectSequenceSubject("EXPECT.other")
				.build());
			return false;
		}
		catch (JetStreamApiException ex) {
			return true;
		}
	}

}
