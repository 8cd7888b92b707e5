package dev.exactlyonce.audit;

import java.time.ZoneId;
import java.util.concurrent.ScheduledFuture;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/**
 * Runs a reconciliation on {@code exactlyonce.reconciliation.cron}, on a thread of its own so it
 * never competes with the application's scheduler.
 */
public class ReconciliationScheduler implements SmartLifecycle {

	private final Reconciliations reconciliations;

	private final CronTrigger trigger;

	private ThreadPoolTaskScheduler scheduler;

	private ScheduledFuture<?> future;

	/**
	 * Creates the scheduler.
	 * @param reconciliations the runner
	 * @param cron the cron expression
	 * @param zone the time zone of the expression
	 */
	public ReconciliationScheduler(Reconciliations reconciliations, String cron, ZoneId zone) {
		this.reconciliations = reconciliations;
		this.trigger = new CronTrigger(cron, zone);
	}

	@Override
	public synchronized void start() {
		this.scheduler = new ThreadPoolTaskScheduler();
		this.scheduler.setThreadNamePrefix("exactlyonce-reconciliation-");
		this.scheduler.setDaemon(true);
		this.scheduler.initialize();
		this.future = this.scheduler.schedule(this.reconciliations::run, this.trigger);
	}

	@Override
	public synchronized void stop() {
		if (this.future != null) {
			this.future.cancel(false);
		}
		if (this.scheduler != null) {
			this.scheduler.shutdown();
		}
		this.future = null;
		this.scheduler = null;
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

}
