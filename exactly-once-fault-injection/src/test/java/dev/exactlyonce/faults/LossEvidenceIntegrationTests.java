package dev.exactlyonce.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamManagement;
import io.nats.client.PublishOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.PublishAck;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StreamConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LossEvidence} on a real 3-node cluster: an acknowledged WorkQueue message removed without
 * being delivered (deleted here, as a lost message would be) shows as a PubAck the stream leader
 * no longer serves, in every node's own state, and in the console line that names it.
 */
class LossEvidenceIntegrationTests {

	@TempDir
	Path row;

	@Test
	void recordsTheAcknowledgedSequenceTheStreamNoLongerHolds() throws Exception {
		try (NatsEnvironment nats = NatsEnvironment.cluster(); Connection connection = nats.connect()) {
			nats.awaitJetStream(connection, Duration.ofSeconds(60));
			JetStreamManagement management = connection.jetStreamManagement();
			management.addStream(StreamConfiguration.builder().name(TaskPublisher.STREAM).subjects("agents.>")
				.retentionPolicy(RetentionPolicy.WorkQueue).replicas(3).build());
			management.addOrUpdateConsumer(TaskPublisher.STREAM, ConsumerConfiguration.builder()
				.durable(RowRun.CONSUMER).filterSubject(TaskPublisher.SUBJECT).ackPolicy(AckPolicy.Explicit).build());
			JetStream jetStream = connection.jetStream();
			jetStream.publish(TaskPublisher.SUBJECT, new byte[0], PublishOptions.builder().messageId("r0t-0").build());
			PublishAck lost = jetStream.publish(TaskPublisher.SUBJECT, new byte[0],
					PublishOptions.builder().messageId("r0t-1").build());
			management.deleteMessage(TaskPublisher.STREAM, lost.getSeqno(), false);
			connection.keyValueManagement().create(KeyValueConfiguration.builder()
				.name(LossEvidence.IDEMPOTENCY_BUCKET).replicas(3).build());
			connection.keyValue(LossEvidence.IDEMPOTENCY_BUCKET)
				.put("r0t-0", "{\"key\":\"r0t-0\",\"duplicateSequences\":[7, " + lost.getSeqno() + "]}");
			Path slot = Files.createDirectories(this.row.resolve("c1"));
			Files.writeString(slot.resolve("console.log"), "nothing about it\nclaimed r0t-1 at sequence "
					+ lost.getSeqno() + "\nclaimed r0t-10\n");
			Files.writeString(slot.resolve("deploys.log"), "r0t-0 abc c1.1 2026-11-26T00:00:00Z " + lost.getSeqno() + "\n");

			String line = LossEvidence.capture(this.row, connection, nats.nodes(), TaskPublisher.STREAM,
					List.of(RowRun.CONSUMER), List.of(new LossEvidence.PubAck("r0t-1", lost.getSeqno(), false,
							lost.getStream(), "publisher-1.log")),
					List.of("r0t-1"), List.of(slot));

			assertThat(line).contains("r0t-1 PubAck seq 2 not duplicate", "seq 2 no message (10037)",
					"first/last 1/2 msgs 1", "1 console line(s) name them",
					"sequence 2 also delivered as the deploy of r0t-0", "sequence 2 acked as a duplicate of record r0t-0");
			for (ClusterNode node : nats.nodes()) {
				assertThat(line).containsPattern(node.name() + " first/last \\d+/\\d+ msgs \\d+ deleted \\d+ leader n\\d, "
						+ RowRun.CONSUMER + " delivered 0 ack floor 0 pending \\d+ ack pending 0");
				assertThat(line).containsPattern(node.name() + " blocks (hold|lack) r0t-1");
			}
			assertThat(this.row.resolve(LossEvidence.FILE)).content()
				.contains("r0t-1 seq 2 not duplicate stream TASKS (publisher-1.log)", "getMessage(2): no message (10037)",
						"c1: claimed r0t-1 at sequence 2")
				.doesNotContain("r0t-10");
		}
	}

}
