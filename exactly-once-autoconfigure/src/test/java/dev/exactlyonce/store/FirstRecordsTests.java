package dev.exactlyonce.store;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link FirstRecords}: a page of a scan holds the page and counts the rest.
 */
class FirstRecordsTests {

	@Test
	void keepsTheFirstRecordsInOrderAndCountsEveryOneOffered() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(),
				Duration.ofHours(1)));
		for (int i = 9; i >= 0; i--) {
			store.tryClaim("worker:task-" + i, "worker-1", Duration.ofMinutes(1));
		}
		FirstRecords first = new FirstRecords(Comparator.comparing(IdempotencyRecord::key), 3);

		store.scan(first);

		assertThat(first.inOrder()).extracting(IdempotencyRecord::key)
			.containsExactly("worker:task-0", "worker:task-1", "worker:task-2");
		assertThat(first.offered()).isEqualTo(10);
	}

	@Test
	void keepsNothingWithALimitOfZero() {
		FirstRecords none = new FirstRecords(Comparator.comparing(IdempotencyRecord::key), 0);
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(new ClaimRules(Clock.systemUTC(),
				Duration.ofHours(1)));
		store.tryClaim("worker:task", "worker-1", Duration.ofMinutes(1));

		store.scan(none);

		assertThat(none.inOrder()).isEmpty();
		assertThat(none.offered()).isEqualTo(1);
	}

}
