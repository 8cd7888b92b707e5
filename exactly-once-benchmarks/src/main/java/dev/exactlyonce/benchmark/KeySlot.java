package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A stored value cut around the one place it holds its record's key, so that the same value can be
 * written for other keys. Keys must need no escaping in the value (plain ASCII letters, digits and
 * punctuation, as {@link ScaleRecords} makes them).
 *
 * @param before the bytes before the key
 * @param after the bytes after the key
 */
record KeySlot(byte[] before, byte[] after) {

	/**
	 * Cuts a value around its key.
	 * @param value the stored value
	 * @param key the key it holds exactly once
	 * @return the slot
	 * @throws IllegalStateException when the value holds the key not exactly once
	 */
	static KeySlot in(byte[] value, String key) {
		byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
		int at = indexOf(value, keyBytes, 0);
		if (at < 0 || indexOf(value, keyBytes, at + 1) >= 0) {
			throw new IllegalStateException("Stored value does not hold the key '" + key + "' exactly once: "
					+ new String(value, StandardCharsets.UTF_8));
		}
		return new KeySlot(Arrays.copyOfRange(value, 0, at), Arrays.copyOfRange(value, at + keyBytes.length,
				value.length));
	}

	/**
	 * The value for another key.
	 * @param key the key
	 * @return a new array
	 */
	byte[] with(String key) {
		byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
		byte[] value = new byte[this.before.length + keyBytes.length + this.after.length];
		System.arraycopy(this.before, 0, value, 0, this.before.length);
		System.arraycopy(keyBytes, 0, value, this.before.length, keyBytes.length);
		System.arraycopy(this.after, 0, value, this.before.length + keyBytes.length, this.after.length);
		return value;
	}

	private static int indexOf(byte[] value, byte[] part, int from) {
		for (int i = from; i <= value.length - part.length; i++) {
			if (Arrays.equals(value, i, i + part.length, part, 0, part.length)) {
				return i;
			}
		}
		return -1;
	}

}
