package dev.exactlyonce.sample;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What became of a marketing task: its post committed, or not committed and why.
 *
 * @param sha the commit, or {@code null} when the post was not committed
 * @param summary the task's result: the commit, or why there is none
 */
record PostOutcome(String sha, String summary) {

	private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");

	static PostOutcome committed(String sha) {
		return new PostOutcome(sha, sha);
	}

	static PostOutcome rejected(Approval approval) {
		String comment = (approval.comment() != null && !approval.comment().isBlank()) ? ": " + approval.comment() : "";
		return new PostOutcome(null, "rejected by " + approval.by() + comment);
	}

	static PostOutcome expired(Duration timeout) {
		String within = timeout.equals(Duration.ofDays(timeout.toDays())) ? timeout.toDays() + "d"
				: timeout.toString().substring(2).toLowerCase(Locale.ROOT);
		return new PostOutcome(null, "expired: no approval within " + within);
	}

	boolean isCommitted() {
		return this.sha != null;
	}

	/**
	 * Whether a marketing task's result (a {@link #summary()}) is a commit id, not why there is none.
	 * @param summary the result, or {@code null}
	 * @return {@code true} for a committed post
	 */
	static boolean isCommit(String summary) {
		return summary != null && COMMIT.matcher(summary).matches();
	}

}
