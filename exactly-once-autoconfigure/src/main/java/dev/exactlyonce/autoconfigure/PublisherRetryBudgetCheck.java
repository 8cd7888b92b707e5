package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.publish.PublishRetryPolicy;

/**
 * Warns at start-up when the publisher's retry budget is longer than a declared stream's
 * duplicate window: a retry arriving after the window would be stored as a second message. The
 * publisher also stops retrying at run time before that could happen.
 */
final class PublisherRetryBudgetCheck {

	private static final Log logger = LogFactory.getLog(PublisherRetryBudgetCheck.class);

	/** The server's default duplicate window, assumed when no stream is declared. */
	private static final Duration SERVER_DEFAULT_WINDOW = Duration.ofMinutes(2);

	private PublisherRetryBudgetCheck() {
	}

	static void warnIfOutsideDuplicateWindows(PublishRetryPolicy policy, ExactlyOnceProperties properties) {
		Duration budget = policy.budget();
		for (Map.Entry<String, StreamProperties> stream : properties.getStreams().entrySet()) {
			Duration window = stream.getValue().getDuplicateWindow();
			if (budget.compareTo(window) >= 0) {
				logger.warn("Publisher retries can take up to " + DurationText.of(wholeSecondsAbove(budget)) + " (exactlyonce.publisher.max-attempts x "
						+ "exactlyonce.nats.request-timeout + backoffs from exactlyonce.publisher.initial-backoff) but "
						+ "exactlyonce.streams." + stream.getKey() + ".duplicate-window is " + DurationText.of(window)
						+ "; retries will stop at the window. Widen the window or lower the attempts.");
			}
		}
	}

	/** A computed budget is printed in whole seconds, rounded up ("up to"), not to the nanosecond. */
	private static Duration wholeSecondsAbove(Duration duration) {
		return Duration.ofSeconds(duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0));
	}

	static Duration shortestWindow(ExactlyOnceProperties properties) {
		return properties.getStreams()
			.values()
			.stream()
			.map(StreamProperties::getDuplicateWindow)
			.min(Duration::compareTo)
			.orElse(SERVER_DEFAULT_WINDOW);
	}

}
