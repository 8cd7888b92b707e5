package dev.exactlyonce.listener;

import java.time.Duration;

/**
 * Exponential backoff between retries of one pipeline call: each wait doubles, up to a longest
 * wait.
 */
final class Backoff {

	private final Duration longest;

	private Duration next;

	Backoff(Duration first, Duration longest) {
		this.next = first;
		this.longest = longest;
	}

	/** The wait before the next retry; the one after it doubles. */
	Duration next() {
		Duration current = this.next;
		Duration doubled = current.multipliedBy(2);
		this.next = (doubled.compareTo(this.longest) > 0) ? this.longest : doubled;
		return current;
	}

	/**
	 * Waits; false when the thread was interrupted meanwhile (its flag is then set again).
	 * @param wait how long
	 * @return whether the whole wait passed
	 */
	static boolean sleep(Duration wait) {
		try {
			Thread.sleep(wait.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
