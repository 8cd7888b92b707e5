package dev.exactlyonce.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.stereotype.Component;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The "CEO agent" running a {@link Campaign}: starts three marketing tasks as child tasks (a blog post,
 * a newsletter and a social post on the campaign's topic; each drafts and waits for a person's approval),
 * waits for all three without holding a worker, then starts one deploy of the committed posts as a
 * child of the {@link DevOpsAgent} and waits for it too. It completes with a summary: what was deployed,
 * and why a post was not (rejected, expired, or failed), after its line in the {@link PostLedger}. Run again after a crash, it starts no child twice
 * (each start is a step); resubmitted, it starts new children.
 */
@Component
class CeoAgent {

	/** Where campaigns go (the {@code ceo-campaign-worker} consumer). */
	static final String CAMPAIGNS = "agents.ceo.tasks.campaign";

	/** The posts of a campaign: the names of its marketing children, and their task types. */
	static final List<String> POSTS = List.of("blog-post", "newsletter", "social-post");

	/** The name of the wait for the three posts. */
	static final String DRAFTS = "drafts";

	/** The name of the deploy child. */
	static final String DEPLOY = "deploy";

	/** How long the campaign waits for its deploy. */
	static final Duration DEPLOY_TIMEOUT = Duration.ofDays(1);

	/** How much longer than a draft's approval the campaign waits for its posts (their drafting, a backlog). */
	static final Duration DRAFT_MARGIN = Duration.ofDays(1);

	private static final Log logger = LogFactory.getLog(CeoAgent.class);

	private final SampleProperties properties;

	private final PostLedger ledger;

	CeoAgent(SampleProperties properties, PostLedger ledger) {
		this.properties = properties;
		this.ledger = ledger;
	}

	@ExactlyOnceListener(consumer = "ceo-campaign-worker")
	String handle(Campaign campaign, ExactlyOnceContext context) {
		List<ChildTask> posts = POSTS.stream()
			.map((type) -> context.startChild(type, "agents.marketing.tasks." + type,
					new TaskAssignment(campaign.campaignId() + "-" + type, "marketing", type,
							Map.of("topic", campaign.topic(), MarketingAgent.CAMPAIGN, campaign.campaignId()))))
			.toList();
		Duration timeout = this.properties.getApprovalTimeout().plus(DRAFT_MARGIN);
		CampaignPosts results = new CampaignPosts(context.awaitAll(DRAFTS, posts, String.class, timeout));
		String summary;
		if (results.commits().isEmpty()) {
			summary = "nothing to deploy: " + results.notCommitted();
		}
		else {
			ChildTask deploy = context.startChild(DEPLOY, MarketingAgent.DEPLOYS,
					new DeployTask(campaign.campaignId(), String.join(",", results.commits())));
			context.awaitChild(deploy, String.class, DEPLOY_TIMEOUT);
			summary = "deployed " + results.commits().size() + " of " + POSTS.size() + " posts (" + results.committed()
					+ ")" + (results.notCommitted().isEmpty() ? "" : "; not deployed: " + results.notCommitted());
		}
		this.ledger.record(campaign.campaignId(), context.deliveryCount());
		logger.info("Campaign " + campaign.campaignId() + " done: " + summary);
		return summary;
	}

	/**
	 * What became of a campaign's posts: each child's result is the marketing task's, the commit id of a
	 * committed post or why there is none.
	 */
	private record CampaignPosts(List<ChildResult<String>> results) {

		List<String> commits() {
			return this.results.stream().filter(CampaignPosts::isCommitted).map(ChildResult::result).toList();
		}

		String committed() {
			return String.join(", ", this.results.stream()
				.filter(CampaignPosts::isCommitted)
				.map((post) -> post.child().name() + " " + post.result().substring(0, 7))
				.toList());
		}

		String notCommitted() {
			return String.join("; ", this.results.stream()
				.filter((post) -> !isCommitted(post))
				.map((post) -> post.child().name() + " " + (post.failed() ? failure(post) : post.result()))
				.toList());
		}

		private static String failure(ChildResult<String> post) {
			return (post.failure().isDiscarded() ? "discarded: " : "dead-lettered: ") + post.failure().reason();
		}

		private static boolean isCommitted(ChildResult<String> post) {
			return !post.failed() && PostOutcome.isCommit(post.result());
		}

	}

}
