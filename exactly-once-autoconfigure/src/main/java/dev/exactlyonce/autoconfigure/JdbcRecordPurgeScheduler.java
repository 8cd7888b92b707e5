package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.listener.logging.RateLimitedLog;
import dev.exactlyonce.store.jdbc.JdbcRecordPurge;

/**
 * Deletes the JDBC store's expired records on one daemon thread, at a fixed delay: each run deletes
 * at most the batch size, oldest first, through the index on {@code expires_at}. A run that fails
 * (the database is down, say) is logged at most once a minute and the next run tries again: the
 * purge never stops on an exception.
 */
class JdbcRecordPurgeScheduler implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(JdbcRecordPurgeScheduler.class);

	private final JdbcRecordPurge purge;

	private final Duration interval;

	private final int batchSize;

	private final RateLimitedLog failures = new RateLimitedLog(logger, Duration.ofMinutes(1));

	private ScheduledExecutorService scheduler;

	JdbcRecordPurgeScheduler(JdbcRecordPurge purge, Duration interval, int batchSize) {
		this.purge = purge;
		this.interval = interval;
		this.batchSize = batchSize;
	}

	/**
	 * Deletes one batch of expired records; never throws.
	 * @return how many records were deleted (0 when the run failed)
	 */
	int purgeOnce() {
		try {
			int deleted = this.purge.purgeExpired(this.batchSize);
			if (deleted > 0 && logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " expired idempotency records");
			}
			return deleted;
		}
		catch (RuntimeException ex) {
			this.failures.warn(() -> "Could not delete expired idempotency records (" + ex.getMessage()
					+ "); trying again in " + DurationText.of(this.interval));
			return 0;
		}
	}

	@Override
	public synchronized void start() {
		if (this.scheduler == null) {
			this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "exactlyonce-jdbc-purge");
				thread.setDaemon(true);
				return thread;
			});
			long millis = this.interval.toMillis();
			this.scheduler.scheduleWithFixedDelay(this::purgeOnce, millis, millis, TimeUnit.MILLISECONDS);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

}
