package dev.exactlyonce.audit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SequenceSet}.
 */
class SequenceSetTests {

	@Test
	void holdsSequencesFarApartAndCountsEachOnce() {
		SequenceSet set = new SequenceSet();
		set.add(5_000_000_000L);
		set.add(1);
		set.add(1);
		set.add(65_536);
		set.add(65_535);

		assertThat(set.contains(5_000_000_000L)).isTrue();
		assertThat(set.contains(1)).isTrue();
		assertThat(set.contains(65_536)).isTrue();
		assertThat(set.contains(65_535)).isTrue();
		assertThat(set.contains(2)).isFalse();
		assertThat(set.contains(4_999_999_999L)).isFalse();
		assertThat(set.size()).isEqualTo(4);
	}

	@Test
	void leavesOutSequencesBelowOne() {
		SequenceSet set = new SequenceSet();
		set.add(0);
		set.add(-3);

		assertThat(set.contains(0)).isFalse();
		assertThat(set.contains(-3)).isFalse();
		assertThat(set.size()).isZero();
	}

}
