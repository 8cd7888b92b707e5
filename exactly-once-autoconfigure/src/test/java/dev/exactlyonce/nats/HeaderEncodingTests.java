package dev.exactlyonce.nats;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.nats.client.impl.Headers;
import io.nats.client.support.IncomingHeadersProcessor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Any header name and value can be written for the Java client (printable US-ASCII only) and read
 * back as it was sent.
 */
class HeaderEncodingTests {

	@Test
	void printableAsciiIsWrittenAsItIs() {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Title", "100% a.b*c >d");
		assertThat(headers.getFirst("X-Title")).isEqualTo("100% a.b*c >d");
		assertThat(headers.containsKey(HeaderEncoding.ENCODED_HEADERS)).isFalse();
		assertThat(HeaderEncoding.first(headers, "X-Title")).isEqualTo("100% a.b*c >d");
	}

	@Test
	void otherValuesAreWrittenPercentEncodedAndListedAndReadBackAsSent() {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Title", "Café 100%\r\n\u0000\u200F🚀");
		HeaderEncoding.put(headers, "Nats-Msg-Id", "tâche-1");
		assertThat(headers.getFirst("X-Title")).isEqualTo("Caf%C3%A9 100%25%0D%0A%00%E2%80%8F%F0%9F%9A%80");
		assertThat(headers.getFirst(HeaderEncoding.ENCODED_HEADERS)).isEqualTo("x-title,nats-msg-id");
		assertThat(HeaderEncoding.first(headers, "Nats-Msg-Id")).isEqualTo("tâche-1");
		assertThat(HeaderEncoding.decoded(headers)).containsExactly(
				org.assertj.core.api.Assertions.entry("X-Title", List.of("Café 100%\r\n\u0000\u200F🚀")),
				org.assertj.core.api.Assertions.entry("Nats-Msg-Id", List.of("tâche-1")));
	}

	@Test
	void spacesAtEitherEndOfAValueSurviveTheWireWhereTheClientWouldTrimThem() {
		for (String value : List.of(" t-1", "t-1 ", "  ", " \u0000")) {
			Headers headers = new Headers();
			HeaderEncoding.put(headers, "Nats-Msg-Id", value);

			Headers received = new IncomingHeadersProcessor(headers.getSerialized()).getHeaders();

			assertThat(HeaderEncoding.first(received, "Nats-Msg-Id")).as("'%s'", value).isEqualTo(value);
		}
	}

	@Test
	void aHeaderWrittenAsItIsIsReadAsItIsEvenWhenAForgedListNamesIt() {
		Headers headers = new Headers().put(HeaderEncoding.ENCODED_HEADERS, "x%41");
		HeaderEncoding.put(headers, "x%41", "v%42");

		Headers received = new IncomingHeadersProcessor(headers.getSerialized()).getHeaders();

		assertThat(HeaderEncoding.decoded(received)).containsExactly(org.assertj.core.api.Assertions.entry("x%41", List.of("v%42")));
	}

	@Test
	void theListNeverSpellsAHeaderNameAsTheServerLooksItUp() {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Title", "Café");
		HeaderEncoding.put(headers, "Nats-Msg-Id", "tâche-1");
		String block = new String(headers.getSerialized(), StandardCharsets.US_ASCII);
		assertThat(block.indexOf("Nats-Msg-Id")).as("nats-server 2.9 reads the first occurrence")
			.isEqualTo(block.indexOf("\r\nNats-Msg-Id:") + 2);
	}

	@Test
	void namesTheClientCannotWriteAreEncodedToo() {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Tïtle: a,b".getBytes(StandardCharsets.UTF_8),
				List.of("v".getBytes(StandardCharsets.UTF_8)));
		assertThat(headers.keySet()).contains("X-T%C3%AFtle%3A%20a%2Cb");
		assertThat(HeaderEncoding.decoded(headers)).containsEntry("X-Tïtle: a,b", List.of("v"));
	}

	@Test
	void bytesThatAreNotUtf8AreKeptExactly() {
		byte[] value = { 'a', (byte) 0xC3, 0x28, (byte) 0xFF };
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Raw".getBytes(StandardCharsets.US_ASCII), List.of(value));
		assertThat(HeaderEncoding.decodeBytes(headers.getFirst("X-Raw"))).isEqualTo(value);
	}

	@Test
	void rewritingOrRemovingAHeaderKeepsTheListTrue() {
		Headers headers = new Headers();
		HeaderEncoding.put(headers, "X-Title", "Café");
		HeaderEncoding.put(headers, "X-Title", "plain");
		assertThat(headers.containsKey(HeaderEncoding.ENCODED_HEADERS)).isFalse();
		HeaderEncoding.put(headers, "X-Key", "é");
		HeaderEncoding.remove(headers, "X-Key");
		assertThat(headers.keySet()).containsExactly("X-Title");
	}

}
