package dev.exactlyonce.nats;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nats.client.impl.Headers;
import io.nats.client.support.IncomingHeadersProcessor;

import dev.exactlyonce.store.StoreKeyEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes header writing and reading with any name and value bytes, next to headers an attacker
 * already set (including a forged {@value HeaderEncoding#ENCODED_HEADERS} list, whose own name is
 * reserved): the Java client
 * always accepts what {@link HeaderEncoding} writes, its wire form parses again, and the value
 * reads back byte for byte. Runs the checked-in seeds in every build; {@code JAZZER_FUZZ=1} fuzzes
 * (see docs/security.md).
 */
class HeaderEncodingFuzzTests {

	@FuzzTest(maxDuration = "2m")
	void anyHeaderIsWrittenAndReadBackAsSent(FuzzedDataProvider data) {
		Headers headers = new Headers();
		if (data.consumeBoolean()) {
			headers.put(HeaderEncoding.ENCODED_HEADERS, data.consumeAsciiString(40).replaceAll("[^!-~]", ""));
		}
		String name = data.consumeString(60);
		List<byte[]> values = new ArrayList<>();
		for (int i = data.consumeInt(1, 3); i > 0; i--) {
			values.add(data.consumeBytes(data.consumeInt(0, 300)));
		}
		if (name.isEmpty() || StoreKeyEncoder.loneSurrogateIndex(name) >= 0
				|| name.equalsIgnoreCase(HeaderEncoding.ENCODED_HEADERS)) {
			return;
		}
		HeaderEncoding.put(headers, utf8(name), values);

		Headers parsed = new IncomingHeadersProcessor(wire(headers)).getHeaders();

		assertThat(HeaderEncoding.firstBytes(parsed, name)).isEqualTo(values.get(0));
		assertThat(HeaderEncoding.decoded(parsed)).containsKey(name);
	}

	private static byte[] wire(Headers headers) {
		return headers.getSerialized();
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
