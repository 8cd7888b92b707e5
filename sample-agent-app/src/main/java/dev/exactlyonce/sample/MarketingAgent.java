package dev.exactlyonce.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.sample.chaos.ChaosObserver;

/**
 * The "marketing agent", in durable steps: {@code draft} (a simulated model call whose text
 * is different on every call; each call is recorded in {@code <output-dir>/drafts.log} with the
 * draft's id, which the text carries), then a durable wait of up to {@code sample.approval-timeout}
 * (7 days) for a person's {@link Approval} (the signal {@code approval}: the task holds no worker
 * while it waits), then, when approved,
 * {@code commit} (a real {@code git commit} of the draft, found again by its {@code Task-Id}
 * trailer when an earlier attempt died before journaling it, and made only when the task has no
 * commit yet, so an instance paused inside the step does not commit again when it resumes), and a follow-up deploy task for the
 * {@link DevOpsAgent} (none for a post of a campaign: the {@link CeoAgent} deploys those). A rejected or expired draft completes without a commit ("rejected by ...",
 * "expired: ..."). It then appends to the ledger. The starter makes sure each task gets here
 * once, and a retried or resumed task continues after its last finished step. In the {@code jdbc} profile the
 * {@link TransactionalMarketingAgent} listens instead and runs this agent's work in a transaction.
 * With {@code sample.limit} set, its listener runs under that limit (key {@code sample.limit-key}) and
 * records each handler's start and end in the {@link HoldLog}.
 */
@Component
@Profile("!jdbc")
@RegisterReflectionForBinding(Approval.class) // the signal's payload, read as JSON (a native image needs the hint)
class MarketingAgent {

	/** The name of the wait for a person's {@link Approval}, and of the signal that answers it. */
	static final String APPROVAL = "approval";

	/**
	 * The key of a task's payload naming the campaign it is a post of: such a task publishes no deploy of
	 * its own (the {@link CeoAgent} deploys the campaign's posts together).
	 */
	static final String CAMPAIGN = "campaign";

	/** Where follow-up deploy tasks go. */
	static final String DEPLOYS = "agents.devops.tasks.deploy";

	private static final Log logger = LogFactory.getLog(MarketingAgent.class);

	private final SampleProperties properties;

	private final PostLedger ledger;

	private final PostRepository posts;

	private final FsyncedLog drafts;

	private final ObjectProvider<ChaosObserver> chaos;

	private final HoldLog holds;

	MarketingAgent(SampleProperties properties, PostLedger ledger, PostRepository posts,
			ObjectProvider<ChaosObserver> chaos, HoldLog holds) {
		this.properties = properties;
		this.holds = holds;
		this.ledger = ledger;
		this.posts = posts;
		this.drafts = new FsyncedLog(properties.getOutputDir().resolve("drafts.log"));
		this.chaos = chaos;
	}

	@ExactlyOnceListener(consumer = "marketing-task-worker", limit = "${sample.limit:}",
			limitKey = "${sample.limit-key:}")
	String handle(TaskAssignment task, ExactlyOnceContext context) {
		this.holds.start(task.taskId());
		try {
			return write(task, context).summary();
		}
		finally {
			this.holds.end(task.taskId());
		}
	}

	/** The agent's work: draft, approval, commit and deploy follow-up; the ledger line. */
	PostOutcome write(TaskAssignment task, ExactlyOnceContext context) {
		Object topic = (task.payload() != null) ? task.payload().get("topic") : null;
		if (topic != null && this.properties.getRejectedTopics().contains(topic.toString())) {
			throw new RejectedTopicException(task.taskId(), topic.toString());
		}
		context.previousAttempt()
			.ifPresent((previous) -> logger.info("Task " + task.taskId() + " was attempted before by "
					+ previous.owner() + " (" + (previous.abandoned() ? "died mid-work" : "failed")
					+ previous.lastStep().map((step) -> " in step " + step).orElse("") + ")"));
		String draft = context.step("draft", String.class, () -> draft(task));
		PostOutcome outcome = refusal(context)
			.orElseGet(() -> PostOutcome.committed(commit(task, draft, context)));
		if (outcome.isCommitted() && (task.payload() == null || !task.payload().containsKey(CAMPAIGN))) {
			context.publish(DEPLOYS, new DeployTask(task.taskId(), outcome.sha()));
		}
		this.ledger.record(task.taskId(), context.deliveryCount());
		logger.info("Task " + task.taskId() + " done: " + (outcome.isCommitted() ? "commit " : "") + outcome.summary());
		return outcome;
	}

	/**
	 * Waits (durably, up to {@code sample.approval-timeout}) for a person's {@link Approval}: the
	 * rejection or the timeout, or empty when approved (at once when {@code sample.approval-required}
	 * is false). Returns on the attempt after the signal or the timeout; until then it suspends the task.
	 */
	private Optional<PostOutcome> refusal(ExactlyOnceContext context) {
		if (!this.properties.isApprovalRequired()) {
			return Optional.empty();
		}
		Duration timeout = this.properties.getApprovalTimeout();
		Optional<Approval> approval = context.awaitSignal(APPROVAL, Approval.class, timeout);
		if (approval.isEmpty()) {
			return Optional.of(PostOutcome.expired(timeout));
		}
		return approval.filter((answer) -> !answer.approved()).map(PostOutcome::rejected);
	}

	private String commit(TaskAssignment task, String draft, ExactlyOnceContext context) {
		return this.properties.isCommitProbe()
				? context.step("commit", String.class, () -> this.posts.commitOnce(task.taskId(), draft),
						() -> this.posts.findCommit(task.taskId()))
				: context.step("commit", String.class, () -> this.posts.commit(task.taskId(), draft));
	}

	/** The simulated model call; fault injection may halt the process half-way (sample.chaos.halt-at=mid-handler). */
	private String draft(TaskAssignment task) throws InterruptedException {
		Duration duration = this.properties.getWorkDuration();
		long half = duration.toMillis() / 2;
		Thread.sleep(half);
		this.chaos.ifAvailable(ChaosObserver::midHandler);
		Thread.sleep(duration.toMillis() - half);
		String instance = this.properties.resolvedInstanceId();
		UUID draftId = UUID.randomUUID();
		this.drafts.append(task.taskId() + " " + instance + " " + Instant.now() + " " + draftId);
		return "# " + task.type() + " for " + task.assignee() + "\n\nTask " + task.taskId() + ", draft "
				+ draftId + ", written by " + instance + " after " + duration.toMillis()
				+ " ms of thought.\n";
	}

}
