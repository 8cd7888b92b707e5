package dev.exactlyonce.listener.logging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;

/**
 * Logs a recurring failure of a background task at most once per interval, saying how many
 * occurrences were left out since the last line, so a task failing on every run neither floods
 * the log nor fails in silence.
 */
public final class RateLimitedLog {

	private final Log logger;

	private final long intervalNanos;

	private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);

	private final AtomicInteger suppressed = new AtomicInteger();

	/**
	 * Creates the log.
	 * @param logger where the warnings go
	 * @param interval the shortest time between two warnings
	 */
	public RateLimitedLog(Log logger, Duration interval) {
		this.logger = logger;
		this.intervalNanos = interval.toNanos();
	}

	/**
	 * Logs a warning unless one was logged within the interval.
	 * @param message the warning, built only when it is logged
	 */
	public void warn(Supplier<String> message) {
		long now = System.nanoTime();
		long allowed = this.nextAllowed.get();
		boolean tooSoon = allowed != Long.MIN_VALUE && now - allowed < 0;
		if (tooSoon || !this.nextAllowed.compareAndSet(allowed, now + this.intervalNanos)) {
			this.suppressed.incrementAndGet();
			return;
		}
		int left = this.suppressed.getAndSet(0);
		this.logger.warn(message.get() + ((left > 0) ? " (" + left + " more like it since the last report)" : ""));
	}

}
