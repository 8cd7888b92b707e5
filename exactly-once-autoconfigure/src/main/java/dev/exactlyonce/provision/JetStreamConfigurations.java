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
		StreamConfiguration.Builder builder = StreamConfiguration.builder()
			.name(name)
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
			.discardNewPerSubject(spec.isDiscardNewPerSubject());
		if (spec.getMaxAge() != null) {
			builder.maxAge(spec.getMaxAge());
		}
		if (spec.getMaxMsgsPerSubject() != null) {
			builder.maxMessagesPerSubject(spec.getMaxMsgsPerSubject());
		}
		if (spec.getMaxMsgs() != null) {
			builder.maxMessages(spec.getMaxMsgs());
		}
		if (spec.getMaxBytes() != null) {
			builder.maxBytes(spec.getMaxBytes());
		}
		return builder.build();
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
