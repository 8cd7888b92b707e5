package dev.exactlyonce.listener;

import java.util.List;

/**
 * Decides whether a handler failure is worth a retry. Failures of the configured non-retryable
 * types (or caused by one) go to the dead-letter subject at once.
 */
final class FailureClassifier {

	private final List<Class<? extends Throwable>> nonRetryable;

	FailureClassifier(List<Class<? extends Throwable>> nonRetryable) {
		this.nonRetryable = List.copyOf(nonRetryable);
	}

	/** A classifier that also treats the given types as non-retryable. */
	FailureClassifier with(List<Class<? extends Throwable>> more) {
		List<Class<? extends Throwable>> all = new java.util.ArrayList<>(this.nonRetryable);
		all.addAll(more);
		return new FailureClassifier(all);
	}

	boolean isRetryable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			for (Class<? extends Throwable> type : this.nonRetryable) {
				if (type.isInstance(cause)) {
					return false;
				}
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return true;
	}

}
