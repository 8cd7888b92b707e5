package dev.exactlyonce.store;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * The rule for a store namespace, the prefix of every stored key of a consumer's tasks
 * ({@code <namespace>:<key>}), whether a listener's annotation or
 * {@code exactlyonce.consumers.<name>.namespace} sets it. Every store encodes keys into its own
 * alphabet, so any other character is kept apart, but a namespace must not be blank, hold a
 * {@code :} (the first one of a stored key ends its namespace: {@code a:b} would read the tasks of
 * {@code a} and be read by them), whitespace or control characters (it is part of message ids sent
 * as NATS headers), or a lone surrogate (keys are stored as UTF-8).
 */
public final class StoreNamespaces {

	private StoreNamespaces() {
	}

	/**
	 * Fails start-up unless a namespace follows the rule.
	 * @param namespace the namespace
	 * @param where what sets it, as the object of "Set ... to": a property, or "the namespace of" a listener's
	 * annotation
	 * @throws ExactlyOnceConfigurationException when it breaks the rule
	 */
	public static void check(String namespace, String where) {
		String problem = problem(namespace);
		if (problem != null) {
			throw new ExactlyOnceConfigurationException(Character.toUpperCase(where.charAt(0)) + where.substring(1)
					+ " is '" + escaped(namespace) + "', which " + problem,
					"Set " + where + " to a name without ':', whitespace or control characters (letters, digits, "
							+ "'-', '_' and '.' are safe), or remove it to use the consumer's name.");
		}
	}

	private static String problem(String namespace) {
		if (namespace.isEmpty()) {
			return "is empty";
		}
		if (namespace.indexOf(':') >= 0) {
			return "holds ':', the character that ends a namespace in a stored key '<namespace>:<key>'";
		}
		if (namespace.codePoints().anyMatch((c) -> Character.isWhitespace(c) || Character.isISOControl(c))) {
			return "holds whitespace or a control character";
		}
		if (StoreKeyEncoder.loneSurrogateIndex(namespace) >= 0) {
			return "holds a lone surrogate (it is not well-formed Unicode)";
		}
		return null;
	}

	private static String escaped(String namespace) {
		StringBuilder text = new StringBuilder();
		namespace.chars()
			.forEach((c) -> text.append((Character.isISOControl(c) || Character.isSurrogate((char) c)
					|| (Character.isWhitespace(c) && c != ' ')) ? String.format("\\u%04x", c) : String.valueOf((char) c)));
		return text.toString();
	}

}
