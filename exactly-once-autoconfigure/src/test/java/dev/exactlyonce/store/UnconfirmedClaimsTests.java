package dev.exactlyonce.store;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link UnconfirmedClaims}.
 */
class UnconfirmedClaimsTests {

	@Test
	void newTokensNeverRepeatWithinOrAcrossClients() {
		Set<String> tokens = new HashSet<>();
		for (UnconfirmedClaims client : new UnconfirmedClaims[] { new UnconfirmedClaims(), new UnconfirmedClaims() }) {
			for (int i = 0; i < 10_000; i++) {
				String token = client.token("listener:key-" + i, "instance#" + i);
				assertThat(token).hasSizeLessThanOrEqualTo(64).matches("[0-9a-f-]+");
				tokens.add(token);
			}
		}
		assertThat(tokens).hasSize(20_000);
	}

}
