package dev.exactlyonce.sample;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commit step's side effect against a real git repository.
 */
class PostRepositoryTests {

	@TempDir
	Path repository;

	@Test
	void commitOnceMakesNoSecondCommitForATaskThatHasOneWhoeverMadeIt() throws Exception {
		PostRepository taker = repository();
		PostRepository resumedZombie = repository();

		String first = taker.commitOnce("t-1", "draft of the instance that took the task over");
		String again = resumedZombie.commitOnce("t-1", "draft of the instance that was paused");

		assertThat(again).isEqualTo(first);
		assertThat(taker.findCommit("t-1")).contains(first);
		assertThat(resumedZombie.commitOnce("t-2", "another task")).isNotEqualTo(first);
	}

	@Test
	void commitWithoutTheCheckCommitsATaskTwiceAsAStepWithoutProbeWould() throws Exception {
		PostRepository posts = repository();

		String first = posts.commit("t-1", "first");
		String second = posts.commit("t-1", "second");

		assertThat(second).isNotEqualTo(first);
		assertThat(posts.findCommit("t-1")).contains(second);
	}

	private PostRepository repository() {
		SampleProperties properties = new SampleProperties();
		properties.setRepository(this.repository);
		return new PostRepository(properties);
	}

}
