package dev.exactlyonce.operations;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.StepRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a task view lists as its children: the journal's {@code startChild} steps (a DONE step whose
 * result is the child task under the step's own name), and nothing else a journal holds.
 */
class ChildStepsTests {

	private static final Instant NOW = Instant.parse("2026-11-29T06:00:00Z");

	@Test
	void startChildStepsAreTheChildrenInJournalOrder() {
		List<ChildLink> children = ChildSteps.of(List.of(done("draft", "\"# text\""),
				done("blog-post", child("blog-post", "c-1/blog-post", 12)),
				done("drafts", "{\"wait\":\"SIGNAL\",\"until\":\"2026-12-06T06:00:00Z\",\"awaits\":[\"blog-post.result\"]}"),
				done("deploy", child("deploy", "c-1/deploy", 15))));

		assertThat(children).containsExactly(
				new ChildLink("blog-post", "agents.marketing.tasks.blog-post", "c-1/blog-post", "TASKS", null, null, null),
				new ChildLink("deploy", "agents.marketing.tasks.deploy", "c-1/deploy", "TASKS", null, null, null));
	}

	@Test
	void stepsThatOnlyLookLikeAChildAreNotChildren() {
		StepRecord started = StepRecord.started("blog-post", 1, "o", NOW);
		assertThat(ChildSteps.of(List.of(started, done("other-name", child("blog-post", "c-1/blog-post", 12)),
				done("partial", "{\"name\":\"partial\",\"key\":\"k\"}"), done("broken", "{not json"), done("nothing", null))))
			.as("a step not done, a child result under another step's name, a result missing fields, not JSON, none")
			.isEmpty();
	}

	private static StepRecord done(String name, String json) {
		return StepRecord.started(name, 1, "origin", NOW).done(json, NOW);
	}

	private static String child(String name, String key, long sequence) {
		return "{\"name\":\"" + name + "\",\"subject\":\"agents.marketing.tasks." + name + "\",\"key\":\"" + key
				+ "\",\"stream\":\"TASKS\",\"streamSequence\":" + sequence + "}";
	}

}
