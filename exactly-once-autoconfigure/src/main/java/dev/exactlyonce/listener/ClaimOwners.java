package dev.exactlyonce.listener;

import java.util.OptionalLong;

/**
 * Reads the owner of a claim, {@code <instance-id>#<stream sequence>} (see
 * {@link ClaimAttempts#ownerOf}): which message made the attempt, so that an attempt of a key can be
 * told apart from the attempts of its other copies (the same key published under another message id).
 */
public final class ClaimOwners {

	private static final char SEPARATOR = '#';

	private ClaimOwners() {
	}

	/**
	 * The owner an instance claims a message's key as.
	 * @param instance the instance's name
	 * @param streamSequence the message's stream sequence
	 * @return {@code <instance>#<stream sequence>}
	 */
	public static String of(String instance, long streamSequence) {
		return instance + SEPARATOR + streamSequence;
	}

	/**
	 * The stream sequence of the message whose attempt an owner made.
	 * @param owner a claim's owner, may be {@code null}
	 * @return the sequence, or empty when the owner names none (an owner written without one)
	 */
	public static OptionalLong streamSequenceOf(String owner) {
		int separator = (owner != null) ? owner.lastIndexOf(SEPARATOR) : -1;
		if (separator < 0 || separator == owner.length() - 1) {
			return OptionalLong.empty();
		}
		try {
			return OptionalLong.of(Long.parseLong(owner.substring(separator + 1)));
		}
		catch (NumberFormatException ex) {
			return OptionalLong.empty();
		}
	}

}
