package dev.exactlyonce.sample;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.sample.chaos.ChaosObserver;

/**
 * The marketing agent of the {@code jdbc} profile: the {@link MarketingAgent}'s work (its durable
 * steps and its wait for approval, journaled on their own), then a committed post as a row of
 * {@link PostsTable}, in one transaction
 * with the task's completion record ({@code transactional = true}). A crash before the commit leaves
 * no row; a zombie's row rolls back with its refused completion.
 */
@Component
@Profile("jdbc")
class TransactionalMarketingAgent {

	private final MarketingAgent work;

	private final PostsTable posts;

	TransactionalMarketingAgent(SampleProperties properties, PostLedger ledger, PostRepository repository,
			ObjectProvider<ChaosObserver> chaos, PostsTable posts, HoldLog holds) {
		this.work = new MarketingAgent(properties, ledger, repository, chaos, holds);
		this.posts = posts;
	}

	// its steps are a model call, a git commit and a publish, none a write to this database: their results
	// must survive a rolled-back transaction, or the model would be paid for again
	@ExactlyOnceListener(consumer = "marketing-task-worker", transactional = true, stepsInTransaction = false)
	String handle(TaskAssignment task, ExactlyOnceContext context) {
		PostOutcome outcome = this.work.write(task, context);
		if (outcome.isCommitted()) {
			this.posts.record(task.taskId(), outcome.sha(), context.deliveryCount());
		}
		return outcome.summary();
	}

}
