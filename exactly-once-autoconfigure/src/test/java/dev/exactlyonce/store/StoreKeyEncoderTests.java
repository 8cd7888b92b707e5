package dev.exactlyonce.store;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Keys are encoded into a store's restricted alphabet without collisions and within its length.
 */
class StoreKeyEncoderTests {

	private final StoreKeyEncoder encoder = new StoreKeyEncoder(128);

	@Test
	void keepsSafeCharactersAndEscapesEverythingElse() {
		assertThat(this.encoder.encode("worker:t-1_A")).isEqualTo("worker=3At-1_A");
		assertThat(this.encoder.encode("a/b c.d=é")).isEqualTo("a=2Fb=20c=2Ed=3D=C3=A9");
	}

	@Test
	void encodedKeysUseOnlyTheKvAlphabetAndStayWithinTheLimit() {
		String longKey = "k".repeat(1024);
		for (String key : List.of("with space", "slash/ed", "ünïcødé ✓", longKey, "=41", "..", "*>")) {
			String encoded = this.encoder.encode(key);
			assertThat(encoded).matches("[-_=a-zA-Z0-9]+").hasSizeLessThanOrEqualTo(128);
		}
	}

	@Test
	void aKeyWithALoneSurrogateIsRefusedNotEncodedAsAQuestionMark() {
		assertThat(this.encoder.encode("a?")).isEqualTo("a=3F");
		assertThatIllegalArgumentException().isThrownBy(() -> this.encoder.encode("a\uD800"))
			.withMessageContaining("surrogate");
		assertThatIllegalArgumentException().isThrownBy(() -> this.encoder.encode("\uDC00b"));
	}

	@Test
	void distinctKeysNeverCollide() {
		List<String> keys = List.of("a b", "a=20b", "a_b", "A b", "=", "=3D", "k".repeat(300), "k".repeat(300) + "x",
				"k".repeat(299) + "y" + "x");
		Set<String> encoded = new HashSet<>();
		keys.forEach((key) -> encoded.add(this.encoder.encode(key)));
		assertThat(encoded).hasSameSizeAs(keys);
	}

}
