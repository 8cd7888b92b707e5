package dev.exactlyonce.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Turns an {@link ExactlyOnceConfigurationException} into a start-up failure report with the
 * problem as description and the fix as action.
 */
class ExactlyOnceFailureAnalyzer extends AbstractFailureAnalyzer<ExactlyOnceConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ExactlyOnceConfigurationException cause) {
		return new FailureAnalysis(cause.getProblemSentence(), cause.getAction(), cause);
	}

}
