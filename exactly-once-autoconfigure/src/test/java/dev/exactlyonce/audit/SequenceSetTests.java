package dev.exactlyonce.audit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SequenceSet}.
 */
class SequenceSetTests {

	@Test
	void holdsSequencesUpToTheCeilingAndCountsEachOnce() {
		SequenceSet set = new SequenceSet(1_000_000L);
		set.add(1_000_000L);
		set.add(1);
		set.add(1);
		set.add(500);

		assertThat(set.contains(1_000_000L)).isTrue();
		assertThat(set.contains(1)).isTrue();
		assertThat(set.contains(500)).isTrue();
		assertThat(set.contains(501)).isFalse();
		assertThat(set.size()).isEqualTo(3);
	}

	@Test
	void leavesOutSequencesAboveTheCeilingAndBelowOne() {
		SequenceSet set = new SequenceSet(10);
		set.add(11);
		set.add(0);
		set.add(-3);

		assertThat(set.contains(11)).isFalse();
		assertThat(set.contains(0)).isFalse();
		assertThat(set.size()).isZero();
	}

}
