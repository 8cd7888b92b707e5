package dev.exactlyonce.store;

import java.nio.charset.StandardCharsets;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Fuzzes the store key encoding with any two keys: different keys never share a store key, every
 * store key is in the KV alphabet and within the limit, and a key that is not well-formed Unicode
 * is refused. Runs the checked-in seeds in every build; {@code JAZZER_FUZZ=1} fuzzes (see
 * docs/security.md).
 */
class StoreKeyEncoderFuzzTests {

	@FuzzTest(maxDuration = "2m")
	void differentKeysNeverShareAStoreKey(FuzzedDataProvider data) {
		StoreKeyEncoder encoder = new StoreKeyEncoder(data.consumeInt(80, 300));
		String first = key(data);
		String second = key(data);
		if (StoreKeyEncoder.loneSurrogateIndex(first) >= 0) {
			assertThatIllegalArgumentException().isThrownBy(() -> encoder.encode(first));
			return;
		}
		if (StoreKeyEncoder.loneSurrogateIndex(second) >= 0) {
			assertThatIllegalArgumentException().isThrownBy(() -> encoder.encode(second));
			return;
		}
		String encodedFirst = encoder.encode(first);
		String encodedSecond = encoder.encode(second);
		assertThat(encodedFirst).matches("[-_=a-zA-Z0-9]*");
		assertThat(encodedFirst.length()).isLessThanOrEqualTo(300);
		assertThat(encodedFirst.equals(encodedSecond)).as("same store key for %s and %s", first, second)
			.isEqualTo(first.equals(second));
	}

	/** A key as text, or as the UTF-8 decoding of bytes (what a header or payload gives). */
	private static String key(FuzzedDataProvider data) {
		int length = data.consumeInt(0, 600);
		return data.consumeBoolean() ? data.consumeString(length)
				: new String(data.consumeBytes(length), StandardCharsets.UTF_8);
	}

}
