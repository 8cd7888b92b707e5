package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import dev.exactlyonce.limits.LimitDefinition;

/**
 * One limit, {@code exactlyonce.limits.<name>}: a concurrency, a rate, or both.
 */
public class LimitProperties {

	/** Most tasks of one key of the limit running at once; 0 for no concurrency limit. */
	private int concurrency;

	/** Most tasks of one key of the limit started within any window of {@code per}; 0 for no rate limit. */
	private int rate;

	/** The window of {@code rate}, on the NATS server's clock. */
	private Duration per = Duration.ofMinutes(1);

	/**
	 * Most tasks waiting in the queue of one key of the limit (the queue is one KV value, bounded by the
	 * server's max_payload); an arrival beyond it is not queued: its attempt fails and is retried, and it
	 * is dead-lettered after max-deliver with a reason naming the limit.
	 */
	private int maxWaiting = LimitDefinition.DEFAULT_MAX_WAITING;

	/**
	 * Most tasks of one key running at once.
	 * @return the concurrency, 0 for none
	 */
	public int getConcurrency() {
		return this.concurrency;
	}

	/**
	 * Sets the concurrency.
	 * @param concurrency the concurrency, 0 for none
	 */
	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	/**
	 * Most tasks of one key started per window.
	 * @return the rate, 0 for none
	 */
	public int getRate() {
		return this.rate;
	}

	/**
	 * Sets the rate.
	 * @param rate the rate, 0 for none
	 */
	public void setRate(int rate) {
		this.rate = rate;
	}

	/**
	 * The rate's window.
	 * @return the window
	 */
	public Duration getPer() {
		return this.per;
	}

	/**
	 * Sets the rate's window.
	 * @param per the window
	 */
	public void setPer(Duration per) {
		this.per = per;
	}

	/**
	 * Most tasks waiting in the queue of one key.
	 * @return the most waiters per key
	 */
	public int getMaxWaiting() {
		return this.maxWaiting;
	}

	/**
	 * Sets the most tasks waiting in the queue of one key.
	 * @param maxWaiting the most waiters per key
	 */
	public void setMaxWaiting(int maxWaiting) {
		this.maxWaiting = maxWaiting;
	}

	/**
	 * The limit, checked.
	 * @param name its name
	 * @return the limit
	 * @throws dev.exactlyonce.config.ExactlyOnceConfigurationException naming the wrong property
	 */
	LimitDefinition toDefinition(String name) {
		return new LimitDefinition(name, this.concurrency, this.rate, this.per, this.maxWaiting);
	}

}
