package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import dev.exactlyonce.waits.WaitsSettings;

/**
 * Durable waits ({@code ExactlyOnceContext.sleep}, {@code awaitSignal}): where they are kept on NATS
 * and how long they may last.
 */
public class WaitsProperties {

	/** Whether handlers may wait durably; the waits' bucket, stream and consumer are then provisioned. */
	private boolean enabled = true;

	/** NATS KV bucket that keeps what ended each wait: a signal, or its timeout. */
	private String bucket = "EXACTLYONCE_WAITS";

	/** Stream that keeps one ticket per waiting task: its message, to publish again when it resumes. */
	private String stream = "EXACTLYONCE_WAIT_TICKETS";

	/** Subject prefix of the tickets ({@code <prefix>.<digest of the task's key>}). */
	private String subjectPrefix = "exactlyonce.waits";

	/** Durable consumer of the tickets, shared by the application's instances (one per application). */
	private String timerConsumer = "exactlyonce-wait-timer";

	/**
	 * Longest a wait may last. Task records, their journals and the waits' entries are kept this much
	 * longer than completed-ttl (on NATS KV the idempotency bucket's TTL is completed-ttl plus this).
	 */
	private Duration maxDuration = Duration.ofDays(30);

	/**
	 * Longest a waiting task goes unlooked-at before its deadline; a signal stored while its sender
	 * could not resume the task is found then.
	 */
	private Duration recheckInterval = Duration.ofMinutes(10);

	/** How many tasks may wait at once (each holds one ack slot of the ticket consumer, none of its own). */
	private int maxWaiting = 100_000;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getBucket() {
		return this.bucket;
	}

	public void setBucket(String bucket) {
		this.bucket = bucket;
	}

	public String getStream() {
		return this.stream;
	}

	public void setStream(String stream) {
		this.stream = stream;
	}

	public String getSubjectPrefix() {
		return this.subjectPrefix;
	}

	public void setSubjectPrefix(String subjectPrefix) {
		this.subjectPrefix = subjectPrefix;
	}

	public String getTimerConsumer() {
		return this.timerConsumer;
	}

	public void setTimerConsumer(String timerConsumer) {
		this.timerConsumer = timerConsumer;
	}

	public Duration getMaxDuration() {
		return this.maxDuration;
	}

	public void setMaxDuration(Duration maxDuration) {
		this.maxDuration = maxDuration;
	}

	public Duration getRecheckInterval() {
		return this.recheckInterval;
	}

	public void setRecheckInterval(Duration recheckInterval) {
		this.recheckInterval = recheckInterval;
	}

	public int getMaxWaiting() {
		return this.maxWaiting;
	}

	public void setMaxWaiting(int maxWaiting) {
		this.maxWaiting = maxWaiting;
	}

	/**
	 * How much longer than {@code completed-ttl} records are kept: the longest wait when waits are on.
	 * @return the extra time
	 */
	public Duration keptLonger() {
		return this.enabled ? this.maxDuration.plus(this.recheckInterval.multipliedBy(2)) : Duration.ZERO;
	}

	/**
	 * The waits' settings.
	 * @param requestTimeout how long one NATS request may take
	 * @param create whether their bucket, stream and consumer are created or updated
	 * @return the settings
	 */
	public WaitsSettings toSettings(Duration requestTimeout, boolean create) {
		return new WaitsSettings(this.bucket, this.stream, this.subjectPrefix, this.timerConsumer, this.maxDuration,
				this.recheckInterval, this.maxWaiting, requestTimeout, create);
	}

}
