package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The decisions on one key's state: who may start, in which order, and when a waiter looks again.
 */
class LimitStateTests {

	private static final Instant NOW = Instant.parse("2026-11-29T10:00:00Z");

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration HEAD_START = Duration.ofSeconds(2);

	private final LimitDefinition two = new LimitDefinition("deploys", 2, 0, null);

	private final LimitDefinition threePerMinute = new LimitDefinition("calls", 0, 3, Duration.ofMinutes(1));

	@Test
	void aFullKeyQueuesTasksFirstComeFirstAndFreesTheHeadsFirst() {
		LimitState state = LimitState.empty();
		state.start(this.two, "a", "ta", NOW.plus(LEASE), NOW);
		state.start(this.two, "b", "tb", NOW.plus(LEASE), NOW);
		assertThat(state.mayStart(this.two, "c")).isFalse();
		state.enqueue("c", NOW, NOW.plusSeconds(100));
		state.enqueue("d", NOW, NOW.plusSeconds(100));
		assertThat(state.nextLook(this.two, NOW, HEAD_START, 0)).as("the head: when the first lease ends")
			.isEqualTo(NOW.plus(LEASE));
		assertThat(state.nextLook(this.two, NOW, HEAD_START, 5))
			.as("any waiter: the queue ahead may be gone by then (a holder that died, a lost wake)")
			.isEqualTo(NOW.plus(LEASE));

		assertThat(state.release("a", "other-token")).as("another attempt's token frees nothing").isFalse();
		assertThat(state.release("a", "ta")).isTrue();
		assertThat(state.heads(state.free(this.two))).extracting(LimitState.Waiter::task).containsExactly("c");
		assertThat(state.mayStart(this.two, "d")).as("the slot is c's").isFalse();
		assertThat(state.mayStart(this.two, "e")).as("nor a newcomer's").isFalse();
		assertThat(state.nextLook(this.two, NOW, HEAD_START, 1)).as("room, held for the head")
			.isEqualTo(NOW.plus(HEAD_START));
		assertThat(state.mayStart(this.two, "c")).isTrue();
		state.start(this.two, "c", "tc", NOW.plus(LEASE), NOW);
		assertThat(state.queue()).extracting(LimitState.Waiter::task).containsExactly("d");
	}

	@Test
	void aRequeuedTaskKeepsItsPlaceAndAWaiterThatDidNotComeBackLosesIt() {
		LimitState state = LimitState.empty();
		state.enqueue("c", NOW, NOW.plusSeconds(10));
		state.enqueue("d", NOW.plusSeconds(1), NOW.plusSeconds(100));
		state.enqueue("c", NOW.plusSeconds(5), NOW.plusSeconds(200));
		assertThat(state.place("c")).isZero();
		assertThat(state.queue().get(0).since()).isEqualTo(NOW);

		state.forgetPast(this.two, NOW.plusSeconds(150));
		assertThat(state.queue()).extracting(LimitState.Waiter::task).containsExactly("c");
	}

	@Test
	void aRateCountsTheStartsWithinItsWindowAndTheNextTokenIsWhenTheOldestLeavesIt() {
		LimitState state = LimitState.empty();
		for (int n = 0; n < 3; n++) {
			state.start(this.threePerMinute, "t" + n, "x", NOW, NOW.plusSeconds(n));
		}
		assertThat(state.holders()).as("a rate holds no slot").isEmpty();
		assertThat(state.mayStart(this.threePerMinute, "t3")).isFalse();
		assertThat(state.nextLook(this.threePerMinute, NOW.plusSeconds(3), HEAD_START, 0))
			.isEqualTo(NOW.plusSeconds(60));
		assertThat(state.nextLook(this.threePerMinute, NOW.plusSeconds(3), HEAD_START, 2))
			.as("each waiter looks when its own token is due, not all at the window's end")
			.isEqualTo(NOW.plusSeconds(62));
		assertThat(state.nextLook(this.threePerMinute, NOW.plusSeconds(3), HEAD_START, 4))
			.as("the fifth: a window later than the second").isEqualTo(NOW.plusSeconds(121));

		state.forgetPast(this.threePerMinute, NOW.plusSeconds(60));
		assertThat(state.starts()).hasSize(2);
		assertThat(state.mayStart(this.threePerMinute, "t3")).isTrue();
	}

	@Test
	void aStartLeavesTheRateWindowOnlyWhenTheLowerBoundOfTheServersTimeIsPerPastIt() {
		LimitState state = LimitState.empty();
		for (int n = 0; n < 3; n++) {
			state.start(this.threePerMinute, "t" + n, "x", NOW, NOW.plusSeconds(n));
		}
		// an instance whose upper bound is past the oldest start's minute, its lower bound not yet
		state.forgetPast(this.threePerMinute, NOW.plusMillis(60_200), NOW.plusMillis(59_900));
		assertThat(state.starts()).as("the oldest start may still be in the window").hasSize(3);
		assertThat(state.mayStart(this.threePerMinute, "t3")).isFalse();

		state.forgetPast(this.threePerMinute, NOW.plusMillis(60_300), NOW.plusSeconds(60));
		assertThat(state.starts()).hasSize(2);
		assertThat(state.mayStart(this.threePerMinute, "t3")).isTrue();
	}

	@Test
	void aLimitThatLimitsNothingOrTooFastIsRefusedNamingItsProperty() {
		assertThatThrownBy(() -> new LimitDefinition("none", 0, 0, null))
			.isInstanceOf(ExactlyOnceConfigurationException.class)
			.hasMessageContaining("exactlyonce.limits.none");
		assertThatThrownBy(() -> new LimitDefinition("fast", 0, 5, Duration.ofMillis(10)))
			.hasMessageContaining("exactlyonce.limits.fast.per");
		assertThatThrownBy(() -> new LimitDefinition("bad name", 1, 0, null)).hasMessageContaining("bad name");
		assertThatThrownBy(() -> new LimitDefinition("queue", 1, 0, null, 0))
			.hasMessageContaining("exactlyonce.limits.queue.max-waiting is 0");
		assertThat(new LimitDefinition("deploys", 2, 0, null).maxWaiting()).isEqualTo(LimitDefinition.DEFAULT_MAX_WAITING);
		assertThat(new LimitDefinition("both", 2, 10, Duration.ofMinutes(1)).describe())
			.isEqualTo("limit 'both' (concurrency 2, rate 10 per PT1M)");
	}

	@Test
	void anEntryKeepsItsKeyAndItsOldestWaiter() {
		LimitState state = LimitState.empty().of("checkout");
		Instant first = Instant.parse("2026-11-29T10:00:00Z");
		state.enqueue("t1", first, first.plusSeconds(60));
		state.enqueue("t2", first.plusSeconds(5), first.plusSeconds(60));
		assertThat(state.key()).isEqualTo("checkout");
		assertThat(state.oldestWaitingSince()).isEqualTo(first);
		assertThat(LimitState.empty().oldestWaitingSince()).isNull();
	}

}
