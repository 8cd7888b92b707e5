package dev.exactlyonce.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The "marketing agent": simulates a long model call, then performs its side effect (writes a
 * post and appends to the ledger). The starter makes sure each task gets here once.
 */
@Component
class MarketingAgent {

	private static final Log logger = LogFactory.getLog(MarketingAgent.class);

	private final SampleProperties properties;

	private final PostLedger ledger;

	MarketingAgent(SampleProperties properties, PostLedger ledger) {
		this.properties = properties;
		this.ledger = ledger;
	}

	@ExactlyOnceListener(consumer = "marketing-task-worker")
	String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException, IOException {
		context.previousAttempt()
			.ifPresent((previous) -> logger.info("Task " + task.taskId() + " was attempted before by "
					+ previous.owner() + " (" + (previous.abandoned() ? "died mid-work" : "failed") + ")"));
		Thread.sleep(this.properties.getWorkDuration().toMillis());
		Path post = writePost(task, this.properties.getWorkDuration());
		this.ledger.record(task.taskId(), context.deliveryCount());
		logger.info("Task " + task.taskId() + " done: " + post.getFileName());
		return post.toString();
	}

	private Path writePost(TaskAssignment task, Duration took) throws IOException {
		Path posts = Files.createDirectories(this.properties.getOutputDir().resolve("posts"));
		Path post = posts.resolve(task.taskId() + ".md");
		Files.writeString(post, "# " + task.type() + " for " + task.assignee() + "\n\nTask " + task.taskId()
				+ " written by " + this.properties.resolvedInstanceId() + " after " + took.toMillis() + " ms of thought.\n");
		return post;
	}

}
