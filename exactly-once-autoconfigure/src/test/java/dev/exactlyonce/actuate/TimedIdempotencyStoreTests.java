package dev.exactlyonce.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.Claim;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The timed store hands each call to its store as it is: several journal entries reach the store
 * as one write, not as a write per entry.
 */
class TimedIdempotencyStoreTests {

	@Test
	void severalEntriesAreOneWriteOfTheStoreAndOneTimedStep() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		CountingWrites counted = new CountingWrites();
		TimedIdempotencyStore store = TimedIdempotencyStore.of(counted, registry);
		Claim claim = ((ClaimResult.Acquired) store.tryClaim("task", "worker-1", Duration.ofMinutes(1))).claim();
		StepRecord draft = StepRecord.started("draft", 1, "origin", Instant.now());

		store.recordSteps(claim, List.of(draft.done("\"draft\"", Instant.now()),
				StepRecord.started("commit", 1, "origin", Instant.now())));

		assertThat(counted.batches).as("calls of the store's recordSteps").isEqualTo(1);
		assertThat(registry.get(ExactlyOnceMeters.STORE_LATENCY).tag("op", "step").timer().count()).isEqualTo(1);
		assertThat(counted.find("task").orElseThrow().journal().steps()).extracting(StepRecord::name, StepRecord::state)
			.containsExactly(tuple("draft", StepState.DONE), tuple("commit", StepState.STARTED));
	}

	/** The in-memory store, counting the writes of entries it is asked for (a single entry's too). */
	private static final class CountingWrites extends InMemoryIdempotencyStore {

		private int batches;

		private CountingWrites() {
			super(new ClaimRules(Clock.systemUTC(), Duration.ofMinutes(10)));
		}

		@Override
		public void recordSteps(Claim claim, List<StepRecord> steps) {
			this.batches++;
			super.recordSteps(claim, steps);
		}

	}

}
