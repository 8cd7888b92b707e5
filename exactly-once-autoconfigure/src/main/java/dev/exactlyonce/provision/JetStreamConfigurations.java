package dev.exactlyonce.provision;

import java.time.Duration;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

/**
 * Turns declared streams and consumers into jnats configurations.
 */
public final class JetStreamConfigurations {

	private JetStreamConfigurations() {
	}

	/**
	 * The configuration of a declared stream.
	 * @param stream the declaration
	 * @return the configuration
	 */
	public static StreamConfiguration stream(StreamDeclaration stream) {
		return declared(StreamConfiguration.builder(), stream).build();
	}

	/**
	 * The configuration that updates a stream on the server to its declaration: the server's
	 * configuration with every declared setting applied, no message size limit, publish acks on
	 * and no mirror. Settings no property declares (deny delete, rollup, sources, republish,
	 * placement, ...) stay as they are, since the server refuses to undo some of them.
	 * @param stream the declaration
	 * @param server the server's configuration
	 * @return the configuration to update with
	 */
	public static StreamConfiguration streamUpdate(StreamDeclaration stream, StreamConfiguration server) {
		return declared(StreamConfiguration.builder(server), stream).maxMsgSize(-1)
			.noAck(false)
			.mirror(null)
			.build();
	}

	private static StreamConfiguration.Builder declared(StreamConfiguration.Builder builder,
			StreamDeclaration stream) {
		return builder.name(stream.name())
			.subjects(stream.subjects())
			.retentionPolicy(switch (stream.retention()) {
				case LIMITS -> RetentionPolicy.Limits;
				case WORKQUEUE -> RetentionPolicy.WorkQueue;
				case INTEREST -> RetentionPolicy.Interest;
			})
			.storageType(storage(stream.storage()))
			.replicas(stream.replicas())
			.duplicateWindow(stream.duplicateWindow())
			.discardPolicy((stream.discard() == Discard.NEW) ? DiscardPolicy.New : DiscardPolicy.Old)
			.discardNewPerSubject(stream.discardNewPerSubject())
			.maxAge((stream.maxAge() != null) ? stream.maxAge() : Duration.ZERO)
			.maxMessagesPerSubject(orUnlimited(stream.maxMsgsPerSubject()))
			.maxMessages(orUnlimited(stream.maxMsgs()))
			.maxBytes(orUnlimited(stream.maxBytes()));
	}

	private static long orUnlimited(Long limit) {
		return (limit != null) ? limit : -1;
	}

	/**
	 * The configuration of a declared durable pull consumer: explicit acks always.
	 * @param consumer the declaration
	 * @return the configuration
	 */
	public static ConsumerConfiguration consumer(ConsumerDeclaration consumer) {
		ConsumerConfiguration.Builder builder = ConsumerConfiguration.builder()
			.durable(consumer.name())
			.ackPolicy(AckPolicy.Explicit)
			.ackWait(consumer.ackWait())
			.maxDeliver(consumer.maxDeliver())
			.maxAckPending(consumer.maxAckPending())
			.deliverPolicy(switch (consumer.deliverPolicy()) {
				case ALL -> DeliverPolicy.All;
				case NEW -> DeliverPolicy.New;
				case LAST -> DeliverPolicy.Last;
				case LAST_PER_SUBJECT -> DeliverPolicy.LastPerSubject;
			});
		if (consumer.filterSubject() != null) {
			builder.filterSubject(consumer.filterSubject());
		}
		if (!consumer.backoff().isEmpty()) {
			builder.backoff(consumer.backoff().toArray(Duration[]::new));
		}
		return builder.build();
	}

	/**
	 * The jnats storage type of a declared storage.
	 * @param storage the declared storage
	 * @return the storage type
	 */
	public static StorageType storage(StorageKind storage) {
		return (storage == StorageKind.MEMORY) ? StorageType.Memory : StorageType.File;
	}

}
