package dev.exactlyonce.nats;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.nats.client.impl.Headers;

/**
 * Writes any header name and value so that the Java client accepts it, and reads it back. The Java
 * client takes only printable US-ASCII names and values; a header that does not fit has its name
 * and every value percent-encoded (each byte of its UTF-8 form outside printable US-ASCII, and
 * {@code %}, as {@code %XX}; in names also {@code :} and {@code ,}; in values also a space at
 * either end, which the client's parser trims), and its encoded name is listed
 * in lower case in the {@value #ENCODED_HEADERS} header (comma-separated, compared ignoring case).
 * Headers not listed there are as sent. Lower case, because nats-server 2.9 finds a header by the
 * first occurrence of its name anywhere in the header block: a list spelling {@code Nats-Msg-Id}
 * before that header would hide the message id from the server's deduplication.
 */
public final class HeaderEncoding {

	/** Lists (comma-separated, lower case) the headers whose name and values are percent-encoded. */
	public static final String ENCODED_HEADERS = "Exactly-Once-Encoded-Headers";

	private static final char[] HEX = "0123456789ABCDEF".toCharArray();

	private HeaderEncoding() {
	}

	/**
	 * Sets a header (replacing its values), encoded when the Java client could not write it as it is.
	 * @param headers the headers to change
	 * @param name the header name
	 * @param value the value
	 */
	public static void put(Headers headers, String name, String value) {
		put(headers, utf8(name), List.of(utf8(value)));
	}

	/**
	 * Sets a header from raw bytes (replacing its values), encoded when the Java client could not
	 * write it as it is; bytes that are not UTF-8 are kept exactly.
	 * @param headers the headers to change
	 * @param name the header name's bytes, not empty
	 * @param values the values' bytes
	 */
	public static void put(Headers headers, byte[] name, List<byte[]> values) {
		boolean encode = !isWritableName(name) || !values.stream().allMatch(HeaderEncoding::isWritableValue);
		String encodedName = percentEncode(name, true);
		Set<String> listed = listed(headers);
		if (encode) {
			headers.put(encodedName, values.stream().map((value) -> percentEncode(value, false)).toList());
			listed.add(listName(encodedName));
		}
		else {
			String plainName = ascii(name);
			if (listed.remove(listName(encodedName))) {
				headers.remove(encodedName);
			}
			listed.remove(listName(plainName));
			headers.put(plainName, values.stream().map(HeaderEncoding::ascii).toList());
		}
		relist(headers, listed);
	}

	/**
	 * Removes a header, and its entry in {@value #ENCODED_HEADERS}.
	 * @param headers the headers to change
	 * @param name the header name as written (encoded when listed)
	 */
	public static void remove(Headers headers, String name) {
		headers.remove(name);
		Set<String> listed = listed(headers);
		if (listed.remove(listName(name))) {
			relist(headers, listed);
		}
	}

	/**
	 * The first value of a header as it was sent: decoded when the header is listed as encoded.
	 * @param headers the headers, may be {@code null}
	 * @param name the header name as sent
	 * @return the value, or {@code null} when absent
	 */
	public static String first(Headers headers, String name) {
		byte[] value = firstBytes(headers, name);
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
	}

	/**
	 * The first value of a header as it was sent, as bytes: decoded when the header is listed as
	 * encoded, so bytes that are not UTF-8 are kept exactly.
	 * @param headers the headers, may be {@code null}
	 * @param name the header name as sent
	 * @return the value's bytes, or {@code null} when absent
	 */
	public static byte[] firstBytes(Headers headers, String name) {
		if (headers == null) {
			return null;
		}
		String list = headers.getFirst(ENCODED_HEADERS);
		if (list != null && !list.isEmpty()) {
			// only messages with encoded headers pay for encoding the name and reading the list
			String encodedName = percentEncode(utf8(name), true);
			if (listed(headers).contains(listName(encodedName))) {
				String value = headers.getFirst(encodedName);
				return (value != null) ? decodeBytes(value) : null;
			}
		}
		String value = headers.getFirst(name);
		return (value != null) ? utf8(value) : null;
	}

	/**
	 * The first value of every header as it was sent, as bytes (see {@link #firstBytes}), by
	 * decoded name, without {@value #ENCODED_HEADERS}.
	 * @param headers the headers, may be {@code null}
	 * @return the first values by name, in order
	 */
	public static Map<String, byte[]> firstBytesByName(Headers headers) {
		Map<String, byte[]> values = new LinkedHashMap<>();
		if (headers == null) {
			return values;
		}
		Set<String> listed = listed(headers);
		for (String name : headers.keySet()) {
			String value = headers.getFirst(name);
			if (!name.equals(ENCODED_HEADERS) && value != null) {
				boolean encoded = listed.contains(listName(name));
				values.put(encoded ? decode(name) : name, encoded ? decodeBytes(value) : utf8(value));
			}
		}
		return values;
	}

	/**
	 * Every header as it was sent (names and values decoded), without {@value #ENCODED_HEADERS}.
	 * @param headers the headers, may be {@code null}
	 * @return the headers by name, in order
	 */
	public static Map<String, List<String>> decoded(Headers headers) {
		Map<String, List<String>> decoded = new LinkedHashMap<>();
		if (headers == null) {
			return decoded;
		}
		Set<String> listed = listed(headers);
		for (String name : headers.keySet()) {
			if (name.equals(ENCODED_HEADERS)) {
				continue;
			}
			List<String> values = headers.get(name);
			boolean encoded = listed.contains(listName(name));
			decoded.put(encoded ? decode(name) : name,
					encoded ? values.stream().map(HeaderEncoding::decode).toList() : values);
		}
		return decoded;
	}

	/**
	 * Percent-decodes one encoded name or value.
	 * @param encoded the encoded text
	 * @return the original bytes
	 */
	public static byte[] decodeBytes(String encoded) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
		for (int i = 0; i < encoded.length(); i++) {
			char c = encoded.charAt(i);
			if (c == '%' && i + 2 < encoded.length() && hex(encoded.charAt(i + 1)) >= 0
					&& hex(encoded.charAt(i + 2)) >= 0) {
				bytes.write(hex(encoded.charAt(i + 1)) * 16 + hex(encoded.charAt(i + 2)));
				i += 2;
			}
			else {
				bytes.write(c);
			}
		}
		return bytes.toByteArray();
	}

	/**
	 * Percent-decodes one encoded name or value to text.
	 * @param encoded the encoded text
	 * @return the original text (bytes that are not UTF-8 become U+FFFD)
	 */
	public static String decode(String encoded) {
		return new String(decodeBytes(encoded), StandardCharsets.UTF_8);
	}

	private static Set<String> listed(Headers headers) {
		String list = headers.getFirst(ENCODED_HEADERS);
		Set<String> listed = new LinkedHashSet<>();
		if (list != null && !list.isEmpty()) {
			Arrays.stream(list.split(",")).map(HeaderEncoding::listName).forEach(listed::add);
		}
		return listed;
	}

	private static String listName(String name) {
		return name.toLowerCase(Locale.ROOT);
	}

	private static void relist(Headers headers, Set<String> listed) {
		headers.remove(ENCODED_HEADERS);
		if (!listed.isEmpty()) {
			headers.put(ENCODED_HEADERS, String.join(",", listed));
		}
	}

	private static boolean isWritableName(byte[] name) {
		for (byte b : name) {
			if (b < 0x21 || b > 0x7E || b == ':') {
				return false;
			}
		}
		return true;
	}

	private static boolean isWritableValue(byte[] value) {
		for (int i = 0; i < value.length; i++) {
			if (value[i] < 0x20 || value[i] > 0x7E || isEdgeSpace(value, i)) {
				return false;
			}
		}
		return true;
	}

	/** A space the client's parser would trim: the first or last byte of a value. */
	private static boolean isEdgeSpace(byte[] value, int index) {
		return value[index] == ' ' && (index == 0 || index == value.length - 1);
	}

	private static String percentEncode(byte[] bytes, boolean name) {
		StringBuilder encoded = new StringBuilder(bytes.length);
		for (int i = 0; i < bytes.length; i++) {
			int unsigned = bytes[i] & 0xFF;
			boolean escape = unsigned < (name ? 0x21 : 0x20) || unsigned > 0x7E || unsigned == '%'
					|| (name ? (unsigned == ':' || unsigned == ',') : isEdgeSpace(bytes, i));
			if (escape) {
				encoded.append('%').append(HEX[unsigned >> 4]).append(HEX[unsigned & 0xF]);
			}
			else {
				encoded.append((char) unsigned);
			}
		}
		return encoded.toString();
	}

	private static int hex(char c) {
		return Character.digit(c, 16);
	}

	private static String ascii(byte[] bytes) {
		return new String(bytes, StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
