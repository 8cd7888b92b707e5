package dev.exactlyonce.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A task interrupted under a build that kept the whole step journal inside the record (step
 * {@code draft} done, {@code commit} started), and its resumption by the current code: the rolling
 * upgrade a store's own test sets up by writing the earlier format.
 */
public final class EarlierFormatJournal {

	private EarlierFormatJournal() {
	}

	/**
	 * The journal the earlier build wrote.
	 * @param now when its steps ran
	 * @return the journal
	 */
	public static StepJournal journal(Instant now) {
		return new StepJournal(List.of(StepRecord.started("draft", 1, "origin-1", now).done("\"first draft\"", now),
				StepRecord.started("commit", 1, "origin-1", now)));
	}

	/**
	 * Claims the task the earlier build left abandoned, checks that the claim resumes its journal
	 * where it stopped, and journals the rest: {@code commit} done, {@code deploy} started, which a
	 * reader then finds after the earlier steps.
	 * @param store the store holding the earlier record of {@code key}
	 * @param key the key
	 * @param writtenAt the time the earlier journal was written with ({@link #journal})
	 * @return the claim that resumed it
	 */
	public static Claim resume(IdempotencyStore store, String key, Instant writtenAt) {
		Instant now = Instant.now();
		ClaimResult.Acquired resumed = (ClaimResult.Acquired) store.tryClaim(key, "worker-1", Duration.ofSeconds(30));
		assertThat(resumed.journal()).isEqualTo(journal(writtenAt));
		assertThat(resumed.previousAttempt().lastStep()).contains("commit");
		StepRecord commit = StepRecord.started("commit", 2, "origin-1", now);
		store.recordStep(resumed.claim(), commit);
		store.recordStep(resumed.claim(), commit.done("\"sha\"", now));
		store.recordStep(resumed.claim(), StepRecord.started("deploy", 2, "origin-1", now));
		assertThat(store.find(key).orElseThrow().journal().steps())
			.extracting(StepRecord::name, StepRecord::state, StepRecord::result)
			.containsExactly(tuple("draft", StepState.DONE, "\"first draft\""), tuple("commit", StepState.DONE, "\"sha\""),
					tuple("deploy", StepState.STARTED, null));
		return resumed.claim();
	}

}
