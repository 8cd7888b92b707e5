package dev.exactlyonce.sample;

import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The "DevOps agent": deploys what the marketing agent committed, recording each deploy as
 * {@code <taskId> <sha> <instanceId> <ISO timestamp> <stream sequence> <key>} in
 * {@code <output-dir>/deploys.log} (fsynced); the key (the deploy task's message id, which a
 * requeued copy keeps) tells a deploy run twice for one task from a deploy task stored twice. Its tasks are keyed by the message id the marketing agent's publish step derived, so
 * each is deployed once.
 */
@Component
class DevOpsAgent {

	private static final Log logger = LogFactory.getLog(DevOpsAgent.class);

	private final FsyncedLog deploys;

	private final String instanceId;

	DevOpsAgent(SampleProperties properties) {
		this.deploys = new FsyncedLog(properties.getOutputDir().resolve("deploys.log"));
		this.instanceId = properties.resolvedInstanceId();
	}

	@ExactlyOnceListener(consumer = "devops-task-worker")
	String handle(DeployTask task, ExactlyOnceContext context) {
		this.deploys.append(task.taskId() + " " + task.sha() + " " + this.instanceId + " " + Instant.now() + " "
				+ context.streamSequence() + " " + context.key());
		logger.info("Task " + task.taskId() + " deployed: " + task.sha());
		return task.sha();
	}

}
