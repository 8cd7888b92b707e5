package dev.exactlyonce.provision;

import java.time.Duration;

import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;

import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.ConsumerSpec;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.Discard;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.StorageKind;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.StreamSpec;

/**
 * Turns declared streams and consumers into jnats configurations.
 */
public final class JetStreamConfigurations {

	private JetStreamConfigurations() {
	}

	/**
	 * The stream configuration declared under {@code exactlyonce.streams.<name>}.
	 * @param name the stream name
	 * @param spec the declaration
	 * @return the configuration
	 */
	public static StreamConfiguration stream(String name, StreamSpec spec) {
		return declared(StreamConfiguration.builder(), name, spec).build();
	}

	/**
	 * The configuration that updates a stream on the server to its declaration: the server's
	 * configuration with every declared setting applied, no message size limit, publish acks on
	 * and no mirror. Settings no property declares (deny delete, rollup, sources, republish,
	 * placement, ...) stay as they are, since the server refuses to undo some of them.
	 * @param name the stream name
	 * @param spec the declaration
	 * @param server the server's configuration
	 * @return the configuration to update with
	 */
	public static StreamConfiguration streamUpdate(String name, StreamSpec spec, StreamConfiguration server) {
		return declared(StreamConfiguration.builder(server), name, spec).maxMsgSize(-1)
			.noAck(false)
			.mirror(null)
			.build();
	}

	private static StreamConfiguration.Builder declared(StreamConfiguration.Builder builder, String name,
			StreamSpec spec) {
		return builder.name(name)
			.subjects(spec.getSubjects())
			.retentionPolicy(switch (spec.getRetention()) {
				case LIMITS -> RetentionPolicy.Limits;
				case WORKQUEUE -> RetentionPolicy.WorkQueue;
				case INTEREST -> RetentionPolicy.Interest;
			})
			.storageType(storage(spec.getStorage()))
			.replicas(spec.getReplicas())
			.duplicateWindow(spec.getDuplicateWindow())
			.discardPolicy((spec.getDiscard() == Discard.NEW) ? DiscardPolicy.New : DiscardPolicy.Old)
			.discardNewPerSubject(spec.isDiscardNewPerSubject())
			.maxAge((spec.getMaxAge() != null) ? spec.getMaxAge() : Duration.ZERO)
			.maxMessagesPerSubject(orUnlimited(spec.getMaxMsgsPerSubject()))
			.maxMessages(orUnlimited(spec.getMaxMsgs()))
			.maxBytes(orUnlimited(spec.getMaxBytes()));
	}

	private static long orUnlimited(Long limit) {
		return (limit != null) ? limit : -1;
	}

	/**
	 * The durable pull consumer configuration declared under {@code exactlyonce.consumers.<name>}:
	 * explicit acks always.
	 * @param durable the durable name
	 * @param spec the declaration
	 * @return the configuration
	 */
	public static ConsumerConfiguration consumer(String durable, ConsumerSpec spec) {
		ConsumerConfiguration.Builder builder = ConsumerConfiguration.builder()
			.durable(durable)
			.ackPolicy(AckPolicy.Explicit)
			.ackWait(spec.getAckWait())
			.maxDeliver(spec.getMaxDeliver())
			.maxAckPending(spec.getMaxAckPending())
			.deliverPolicy(switch (spec.getDeliverPolicy()) {
				case ALL -> DeliverPolicy.All;
				case NEW -> DeliverPolicy.New;
				case LAST -> DeliverPolicy.Last;
				case LAST_PER_SUBJECT -> DeliverPolicy.LastPerSubject;
			});
		if (spec.getFilterSubject() != null) {
			builder.filterSubject(spec.getFilterSubject());
		}
		if (!spec.getBackoff().isEmpty()) {
			builder.backoff(spec.getBackoff().toArray(Duration[]::new));
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
