package dev.exactlyonce.nats;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import io.nats.client.support.IncomingHeadersProcessor;

/**
 * A message as the stream stores it, read without letting the Java client parse its headers.
 *
 * @param subject the subject it was published on
 * @param sequence its stream sequence
 * @param headerBlock the raw header block ({@code NATS/1.0\r\n...}), or an empty array
 * @param data the payload
 */
public record RawStreamMessage(String subject, long sequence, byte[] headerBlock, byte[] data) {

	/** Header name under which a header line that is not {@code name: value} is kept. */
	public static final String UNPARSED_HEADER = "Exactly-Once-Unparsed-Header";

	private static final byte[] CRLF = { '\r', '\n' };

	/**
	 * Whether the Java client can read these headers as they are; when not, it stops its
	 * connection's reader on this message.
	 * @return {@code true} when the headers are readable (or absent)
	 */
	public boolean decodableByClient() {
		if (this.headerBlock.length == 0) {
			return true;
		}
		try {
			new IncomingHeadersProcessor(this.headerBlock);
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * The message with its headers parsed tolerantly: every {@code name: value} line is kept, a
	 * name or value the client cannot write is percent-encoded as {@link HeaderEncoding} describes,
	 * and a line that is not {@code name: value} is kept under {@value #UNPARSED_HEADER}.
	 * @return the message
	 */
	public Message toMessage() {
		Headers headers = headers();
		return NatsMessage.builder()
			.subject(this.subject)
			.headers(headers.isEmpty() ? null : headers)
			.data(this.data)
			.build();
	}

	private Headers headers() {
		Map<String, List<byte[]>> values = new LinkedHashMap<>();
		Map<String, byte[]> names = new LinkedHashMap<>();
		List<byte[]> lines = lines();
		for (byte[] line : lines.subList(Math.min(1, lines.size()), lines.size())) {
			if (line.length == 0) {
				break;
			}
			int colon = indexOf(line, (byte) ':');
			byte[] name = (colon > 0) ? trim(Arrays.copyOfRange(line, 0, colon)) : new byte[0];
			byte[] value = (colon > 0) ? trimStart(Arrays.copyOfRange(line, colon + 1, line.length)) : line;
			if (name.length == 0) {
				name = UNPARSED_HEADER.getBytes(StandardCharsets.US_ASCII);
			}
			String key = new String(name, StandardCharsets.ISO_8859_1);
			names.putIfAbsent(key, name);
			values.computeIfAbsent(key, (k) -> new ArrayList<>()).add(value);
		}
		Headers headers = new Headers();
		values.forEach((key, nameValues) -> HeaderEncoding.put(headers, names.get(key), nameValues));
		return headers;
	}

	/** The block split at CRLF only: a bare CR or LF stays inside its line. */
	private List<byte[]> lines() {
		List<byte[]> lines = new ArrayList<>();
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int i = 0; i < this.headerBlock.length; i++) {
			if (this.headerBlock[i] == CRLF[0] && i + 1 < this.headerBlock.length && this.headerBlock[i + 1] == CRLF[1]) {
				lines.add(line.toByteArray());
				line.reset();
				i++;
			}
			else {
				line.write(this.headerBlock[i]);
			}
		}
		if (line.size() > 0) {
			lines.add(line.toByteArray());
		}
		return lines;
	}

	private static int indexOf(byte[] bytes, byte wanted) {
		for (int i = 0; i < bytes.length; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	private static byte[] trimStart(byte[] bytes) {
		int start = 0;
		while (start < bytes.length && (bytes[start] == ' ' || bytes[start] == '\t')) {
			start++;
		}
		return Arrays.copyOfRange(bytes, start, bytes.length);
	}

	private static byte[] trim(byte[] bytes) {
		int end = bytes.length;
		while (end > 0 && (bytes[end - 1] == ' ' || bytes[end - 1] == '\t')) {
			end--;
		}
		return trimStart(Arrays.copyOfRange(bytes, 0, end));
	}

}
