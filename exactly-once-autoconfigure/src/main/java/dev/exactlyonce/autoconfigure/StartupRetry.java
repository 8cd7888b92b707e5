package dev.exactlyonce.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import io.nats.client.Connection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.nats.PermissionViolation;
import dev.exactlyonce.nats.PermissionViolations;

/**
 * Retries a start-up call to JetStream that got no answer (the cluster may be electing a leader, or
 * a node restarting) for a bounded time instead of failing start-up at once; any other failure
 * (a refusal, a wrong declaration) fails at once, and so does a request the server left unanswered
 * because the user lacks a permission (named, with the subject to allow).
 */
final class StartupRetry {

	private static final Log logger = LogFactory.getLog(StartupRetry.class);

	/** How long start-up waits for JetStream to answer. */
	static final Duration PATIENCE = Duration.ofSeconds(30);

	private static final Duration PAUSE = Duration.ofSeconds(1);

	private StartupRetry() {
	}

	static <T> T call(String what, Connection connection, Supplier<T> call) {
		long deadline = System.nanoTime() + PATIENCE.toNanos();
		while (true) {
			try {
				return call.get();
			}
			catch (RuntimeException ex) {
				Optional<PermissionViolation> violation = PermissionViolations.firstOn(connection);
				if (violation.isPresent()) {
					throw violation.get().toFailure(what, ex);
				}
				if (!causedByNoAnswer(ex) || System.nanoTime() - deadline > 0) {
					throw ex;
				}
				logger.warn(what + " got no answer from JetStream (" + ex.getMessage() + "); trying again for up to "
						+ DurationText.of(PATIENCE) + " in all");
				try {
					Thread.sleep(PAUSE.toMillis());
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw ex;
				}
			}
		}
	}

	private static boolean causedByNoAnswer(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof IOException) {
				return true;
			}
		}
		return false;
	}

}
