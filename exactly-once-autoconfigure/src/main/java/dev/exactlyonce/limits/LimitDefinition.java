package dev.exactlyonce.limits;

import java.time.Duration;
import java.util.regex.Pattern;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * One declared limit, {@code exactlyonce.limits.<name>}: at most {@code concurrency} tasks of a key
 * at once, and at most {@code rate} tasks of a key started in any window of {@code per}.
 *
 * @param name the limit's name
 * @param concurrency the most holders of a key at once, or 0 for no such limit
 * @param rate the most starts of a key per window, or 0 for no such limit
 * @param per the window of {@code rate}
 * @param maxWaiting the most tasks queued on one key; an arrival beyond it is not queued (its attempt
 * fails with a {@link dev.exactlyonce.limits.spi.LimitQueueFullException})
 */
public record LimitDefinition(String name, int concurrency, int rate, Duration per, int maxWaiting) {

	/** The most tasks queued on one key unless {@code exactlyonce.limits.<name>.max-waiting} says otherwise. */
	public static final int DEFAULT_MAX_WAITING = 5000;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

	/**
	 * Checks the limit.
	 * @throws ExactlyOnceConfigurationException naming the property that is wrong
	 */
	public LimitDefinition {
		String property = "exactlyonce.limits." + name;
		if (name == null || !NAME.matcher(name).matches()) {
			throw new ExactlyOnceConfigurationException("Limit name '" + name + "' (" + property + ") is not 1 to 64 "
					+ "letters, digits, '-' or '_'", "Rename the limit");
		}
		if (concurrency < 0 || rate < 0 || (concurrency == 0 && rate == 0)) {
			throw new ExactlyOnceConfigurationException(property + " sets concurrency " + concurrency + " and rate "
					+ rate + ": it limits nothing or is negative", "Set " + property + ".concurrency and/or " + property
							+ ".rate (with .per) to a positive number");
		}
		if (rate > 0 && (per == null || per.isNegative() || per.compareTo(Duration.ofMillis(100)) < 0)) {
			throw new ExactlyOnceConfigurationException(property + ".per is " + per + " with a rate of " + rate,
					"Set " + property + ".per to 100ms or longer (e.g. 1m)");
		}
		if (maxWaiting < 1) {
			throw new ExactlyOnceConfigurationException(property + ".max-waiting is " + maxWaiting,
					"Set " + property + ".max-waiting to 1 or more (default " + DEFAULT_MAX_WAITING + ")");
		}
		if (rate > 10_000) {
			throw new ExactlyOnceConfigurationException(property + ".rate is " + rate + ", above 10000 per window: "
					+ "each start of the window is kept in one KV entry", "Use a shorter " + property + ".per");
		}
	}

	/**
	 * A limit that queues up to {@link #DEFAULT_MAX_WAITING} tasks per key.
	 * @param name the limit's name
	 * @param concurrency the most holders of a key at once, or 0
	 * @param rate the most starts of a key per window, or 0
	 * @param per the window of {@code rate}
	 */
	public LimitDefinition(String name, int concurrency, int rate, Duration per) {
		this(name, concurrency, rate, per, DEFAULT_MAX_WAITING);
	}

	/**
	 * The limit as docs and messages say it.
	 * @return e.g. {@code limit 'deploys' (concurrency 2)}
	 */
	public String describe() {
		return "limit '" + this.name + "' (" + ((this.concurrency > 0) ? "concurrency " + this.concurrency : "")
				+ ((this.concurrency > 0 && this.rate > 0) ? ", " : "")
				+ ((this.rate > 0) ? "rate " + this.rate + " per " + this.per : "") + ")";
	}

}
