package dev.exactlyonce.audit;

/**
 * NATS subject matching with the {@code *} (one token) and {@code >} (one or more tokens)
 * wildcards.
 */
public final class Subjects {

	private Subjects() {
	}

	/**
	 * Whether a subject matches a filter; an empty filter matches everything.
	 * @param filter the filter subject, or {@code null}
	 * @param subject a literal subject
	 * @return {@code true} on a match
	 */
	public static boolean matches(String filter, String subject) {
		if (filter == null || filter.isEmpty()) {
			return true;
		}
		String[] wanted = filter.split("\\.");
		String[] actual = subject.split("\\.");
		for (int i = 0; i < wanted.length; i++) {
			if (wanted[i].equals(">")) {
				return actual.length > i;
			}
			if (i >= actual.length || (!wanted[i].equals("*") && !wanted[i].equals(actual[i]))) {
				return false;
			}
		}
		return wanted.length == actual.length;
	}

}
