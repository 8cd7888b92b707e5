package dev.exactlyonce.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.exactlyonce.provision.ProvisioningException;

/**
 * Turns a {@link ProvisioningException} (a declared stream or consumer that cannot be made to
 * match the server) into a start-up failure report instead of a stack trace; its message names
 * the property and the fix.
 */
class ProvisioningFailureAnalyzer extends AbstractFailureAnalyzer<ProvisioningException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ProvisioningException cause) {
		return new FailureAnalysis(cause.getMessage(),
				"Change the declaration under exactlyonce.* or the server as described above.", cause);
	}

}
