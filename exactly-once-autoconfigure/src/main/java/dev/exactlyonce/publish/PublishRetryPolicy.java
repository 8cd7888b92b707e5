package dev.exactlyonce.publish;

import java.time.Duration;

/**
 * How a publish is retried when the server's answer does not arrive.
 *
 * @param maxAttempts attempts per publish, the first included
 * @param initialBackoff the delay before the first retry, doubled before each further one
 * @param requestTimeout how long one attempt waits for the server's answer
 */
public record PublishRetryPolicy(int maxAttempts, Duration initialBackoff, Duration requestTimeout) {

	/**
	 * The longest time from the first attempt to the last one's possible arrival at the server:
	 * every attempt's timeout plus every backoff. Keep it inside the duplicate window, or a late
	 * retry can be stored as a new message.
	 * @return the retry budget
	 */
	public Duration budget() {
		Duration total = this.requestTimeout.multipliedBy(Math.max(1, this.maxAttempts));
		Duration backoff = this.initialBackoff;
		for (int retry = 1; retry < this.maxAttempts; retry++) {
			total = total.plus(backoff);
			backoff = backoff.multipliedBy(2);
		}
		return total;
	}

}
