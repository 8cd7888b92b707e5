package dev.exactlyonce.sample;

import java.time.Instant;

import org.springframework.stereotype.Component;

/**
 * The side-effect ledger: one line per execution of the marketing agent (task id) and of the CEO
 * agent's campaign (campaign id),
 * {@code <taskId> <deliveryCount> <instanceId> <ISO timestamp>}, flushed and fsynced before the
 * handler returns, so it survives a {@code kill -9} right after.
 */
@Component
public class PostLedger {

	private final FsyncedLog log;

	private final String instanceId;

	PostLedger(SampleProperties properties) {
		this.log = new FsyncedLog(properties.getOutputDir().resolve("ledger.log"));
		this.instanceId = properties.resolvedInstanceId();
	}

	/**
	 * Appends and fsyncs one execution.
	 * @param taskId the task
	 * @param deliveryCount the delivery it ran on
	 */
	public void record(String taskId, long deliveryCount) {
		this.log.append(taskId + " " + deliveryCount + " " + this.instanceId + " " + Instant.now());
	}

}
