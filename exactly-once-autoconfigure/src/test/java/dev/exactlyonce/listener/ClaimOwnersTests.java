package dev.exactlyonce.listener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimOwnersTests {

	@Test
	void ownerNamesTheMessageOfTheAttempt() {
		assertThat(ClaimOwners.streamSequenceOf("pod-7#42")).hasValue(42);
	}

	@Test
	void instanceNamesContainingTheSeparatorKeepTheSequenceAfterTheLastOne() {
		assertThat(ClaimOwners.streamSequenceOf("pod#7#42")).hasValue(42);
	}

	@Test
	void ownersWithoutASequenceNameNoMessage() {
		assertThat(ClaimOwners.streamSequenceOf("pod-7")).isEmpty();
		assertThat(ClaimOwners.streamSequenceOf("pod-7#")).isEmpty();
		assertThat(ClaimOwners.streamSequenceOf("pod-7#worker-1")).isEmpty();
		assertThat(ClaimOwners.streamSequenceOf(null)).isEmpty();
	}

}
