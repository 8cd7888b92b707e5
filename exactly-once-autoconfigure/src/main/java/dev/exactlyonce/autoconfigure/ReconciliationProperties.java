package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the reconciliation audit, bound from {@code exactlyonce.reconciliation.*}.
 */
@ConfigurationProperties("exactlyonce.reconciliation")
public class ReconciliationProperties {

	/** Whether the reconciliation audit is available (endpoint operation, schedule, metrics). */
	private boolean enabled = true;

	/** Cron expression (Spring format, six fields) of scheduled runs; not scheduled when unset. */
	private String cron;

	/** Time zone of the cron expression and of the rendered table. */
	private String zone = "UTC";

	/** How far back from the run each reconciliation looks (one table row per run). */
	private Duration window = Duration.ofHours(24);

	/** How many reports are kept in memory for the endpoint and the table. */
	private int history = 31;

	/** Most stream sequences inspected per consumer and run; older ones are skipped and noted. */
	private long maxSequences = 100_000;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getCron() {
		return this.cron;
	}

	public void setCron(String cron) {
		this.cron = cron;
	}

	public String getZone() {
		return this.zone;
	}

	public void setZone(String zone) {
		this.zone = zone;
	}

	public Duration getWindow() {
		return this.window;
	}

	public void setWindow(Duration window) {
		this.window = window;
	}

	public int getHistory() {
		return this.history;
	}

	public void setHistory(int history) {
		this.history = history;
	}

	public long getMaxSequences() {
		return this.maxSequences;
	}

	public void setMaxSequences(long maxSequences) {
		this.maxSequences = maxSequences;
	}

}
