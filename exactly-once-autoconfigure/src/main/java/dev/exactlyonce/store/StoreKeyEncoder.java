package dev.exactlyonce.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Encodes idempotency keys into a store's restricted key alphabet without collisions.
 * <p>
 * Letters, digits, {@code -} and {@code _} are kept; every other UTF-8 byte becomes {@code =XX}
 * (upper-case hex), so the encoding is reversible and injective. An encoded key longer than the
 * limit becomes its first characters followed by {@code =h} and the SHA-256 of the whole key,
 * which cannot be produced by the escaping itself. A key holding a lone surrogate (a string that is
 * not well-formed Unicode, whose UTF-8 form would be {@code ?}) is refused rather than collide with
 * the key spelled with {@code ?}.
 */
public final class StoreKeyEncoder {

	private static final HexFormat HEX = HexFormat.of().withUpperCase();

	private final int maxLength;

	/**
	 * Creates an encoder.
	 * @param maxLength the longest encoded key the store accepts (at least 80)
	 */
	public StoreKeyEncoder(int maxLength) {
		if (maxLength < 80) {
			throw new IllegalArgumentException("maxLength must be at least 80 but was " + maxLength);
		}
		this.maxLength = maxLength;
	}

	/**
	 * Encodes a key.
	 * @param key the key, any string
	 * @return the encoded key, within the alphabet {@code [-_=a-zA-Z0-9]}
	 * @throws IllegalArgumentException when the key holds a lone surrogate
	 */
	public String encode(String key) {
		int loneSurrogate = loneSurrogateIndex(key);
		if (loneSurrogate >= 0) {
			throw new IllegalArgumentException("Key holds a lone surrogate at index " + loneSurrogate
					+ ": it is not well-formed Unicode and has no UTF-8 form of its own");
		}
		StringBuilder encoded = new StringBuilder(key.length() + 16);
		for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
			if (isKept(b)) {
				encoded.append((char) b);
			}
			else {
				encoded.append('=').append(HEX.toHexDigits(b));
			}
		}
		if (encoded.length() <= this.maxLength) {
			return encoded.toString();
		}
		String digest = sha256(key);
		return encoded.substring(0, this.maxLength - digest.length() - 2) + "=h" + digest;
	}

	/**
	 * Where a text is not well-formed Unicode.
	 * @param text the text
	 * @return the index of its first lone surrogate, or {@code -1} when it has none
	 */
	public static int loneSurrogateIndex(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	private static boolean isKept(byte b) {
		return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' || b == '_';
	}

	private static String sha256(String key) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every Java platform", ex);
		}
	}

}
