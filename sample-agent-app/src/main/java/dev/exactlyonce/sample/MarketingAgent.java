package dev.exactlyonce.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.sample.chaos.ChaosObserver;

/**
 * The "marketing agent": simulates a long model call, then performs its side effect (writes a
 * post and appends to the ledger). The starter makes sure each task gets here once.
 */
@Component
class MarketingAgent {

	private static final Log logger = LogFactory.getLog(MarketingAgent.class);

	private final SampleProperties properties;

	private final PostLedger ledger;

	private final ObjectProvider<ChaosObserver> chaos;

	MarketingAgent(SampleProperties properties, PostLedger ledger, ObjectProvider<ChaosObserver> chaos) {
		this.properties = properties;
		this.ledger = ledger;
		this.chaos = chaos;
	}

	@ExactlyOnceListener(consumer = "marketing-task-worker")
	String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException, IOException {
		context.previousAttempt()
			.ifPresent((previous) -> logger.info("Task " + task.taskId() + " was attempted before by "
					+ previous.owner() + " (" + (previous.abandoned() ? "died mid-work" : "failed") + ")"));
		think(this.properties.getWorkDuration());
		Path post = writePost(task, this.properties.getWorkDuration());
		this.ledger.record(task.taskId(), context.deliveryCount());
		logger.info("Task " + task.taskId() + " done: " + post.getFileName());
		return post.toString();
	}

	/** The simulated model call; fault injection may halt the process half-way (sample.chaos.halt-at=mid-handler). */
	private void think(Duration duration) throws InterruptedException {
		long half = duration.toMillis() / 2;
		Thread.sleep(half);
		this.chaos.ifAvailable(ChaosObserver::midHandler);
		Thread.sleep(duration.toMillis() - half);
	}

	private Path writePost(TaskAssignment task, Duration took) throws IOException {
		Path posts = Files.createDirectories(this.properties.getOutputDir().resolve("posts"));
		Path post = posts.resolve(task.taskId() + ".md");
		Files.writeString(post, "# " + task.type() + " for " + task.assignee() + "\n\nTask " + task.taskId()
				+ " written by " + this.properties.resolvedInstanceId() + " after " + took.toMillis() + " ms of thought.\n");
		return post;
	}

}
