package dev.exactlyonce.sample;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;

/**
 * For the fault-injection suite: records every settled delivery of every consumer in
 * {@code <output-dir>/deliveries.log} (fsynced), as {@code <consumer> <key> <stream sequence> <outcome>
 * <instanceId>}, duplicates included, so a driver can count the stream messages stored per key (a
 * child task stored twice shows as two sequences of one key). Only with {@code sample.delivery-log=true}.
 */
@Component
@ConditionalOnProperty(name = "sample.delivery-log", havingValue = "true")
class DeliveryLog implements PipelineObserver {

	private final FsyncedLog log;

	private final String instanceId;

	DeliveryLog(SampleProperties properties) {
		this.log = new FsyncedLog(properties.getOutputDir().resolve("deliveries.log"));
		this.instanceId = properties.resolvedInstanceId();
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		this.log.append(context.consumer() + " " + context.key() + " " + context.streamSequence() + " " + outcome + " "
				+ this.instanceId);
	}

}
