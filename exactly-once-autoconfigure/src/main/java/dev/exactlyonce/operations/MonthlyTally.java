package dev.exactlyonce.operations;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.nats.client.JetStreamApiException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.PublishObserver;
import dev.exactlyonce.publish.PublishResult;

/**
 * Counts this instance's publishes, completions and duplicates by month (UTC) and adds them to the
 * {@link TallyBucket} every flush interval and when the application stops, so the monthly table
 * sums every instance and survives restarts. Counts not yet added when a process dies are lost (at
 * most one interval's worth); an addition whose answer is lost is tried again and may then count
 * twice. A failing flush keeps its counts for the next one and warns at most once a minute.
 */
public class MonthlyTally implements PipelineObserver, PublishObserver {

	private static final Log logger = LogFactory.getLog(MonthlyTally.class);

	private static final Duration WARNING_INTERVAL = Duration.ofMinutes(1);

	private final TallyBucket bucket;

	private final Clock clock;

	private final Duration interval;

	private final Map<String, MonthlyCounts> pending = new TreeMap<>();

	private ScheduledExecutorService flusher;

	/** One flush at a time, so counts a failed flush puts back are never left behind by a later one. */
	private final ReentrantLock flushing = new ReentrantLock();

	private Instant lastWarning;

	/** The month counts go to, and the span of instants it covers (guarded by this tally's lock). */
	private String month;

	private Instant monthStart = Instant.MAX;

	private Instant monthEnd = Instant.MIN;

	/**
	 * Creates the tally.
	 * @param bucket where the counts are kept
	 * @param clock the clock that decides the month
	 * @param interval how often counts are added to the bucket
	 */
	public MonthlyTally(TallyBucket bucket, Clock clock, Duration interval) {
		this.bucket = bucket;
		this.clock = clock;
		this.interval = interval;
	}

	@Override
	public void onPublished(String subject, PublishResult result) {
		count(result.duplicate() ? new MonthlyCounts(0, 0, 1, 0, 0) : new MonthlyCounts(1, 0, 0, 0, 0));
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (point == PipelinePoint.INVOKING && context.previousAttempt().map((p) -> p.abandoned()).orElse(false)) {
			count(new MonthlyCounts(0, 0, 0, 0, 1));
		}
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		switch (outcome) {
			case PROCESSED, COMPLETION_RECOVERED -> count(new MonthlyCounts(0, 1, 0, 0, 0));
			case DUPLICATE -> count(new MonthlyCounts(0, 0, 0, 1, 0));
			case CLAIM_LOST -> count(new MonthlyCounts(0, 0, 0, 0, 1));
			default -> {
			}
		}
	}

	/**
	 * The table: every month's counts in the bucket, plus this instance's counts not yet added.
	 * @return the rows, oldest month first
	 * @throws IOException when the bucket could not be read
	 * @throws JetStreamApiException when the server refused
	 */
	public List<MonthlyRow> rows() throws IOException, JetStreamApiException {
		Map<String, MonthlyCounts> months = new TreeMap<>();
		this.bucket.rows().forEach((row) -> months.put(row.month(), new MonthlyCounts(row.published(),
				row.completed(), row.duplicatesCaughtByStreamDedup(), row.duplicatesCaughtByIdempotencyCheck(),
				row.duplicatesReachedExecution())));
		synchronized (this) {
			this.pending.forEach((month, counts) -> months.merge(month, counts, MonthlyCounts::plus));
		}
		return months.entrySet().stream().map((entry) -> MonthlyRow.of(entry.getKey(), entry.getValue())).toList();
	}

	/** Starts adding counts to the bucket every interval. */
	public synchronized void start() {
		if (this.flusher == null) {
			this.flusher = Executors.newSingleThreadScheduledExecutor((task) -> {
				Thread thread = new Thread(task, "exactlyonce-monthly-tally");
				thread.setDaemon(true);
				return thread;
			});
			this.flusher.scheduleWithFixedDelay(this::flushQuietly, this.interval.toMillis(), this.interval.toMillis(),
					TimeUnit.MILLISECONDS);
		}
	}

	/** Stops the schedule and adds what is left, once. */
	public void stop() {
		ScheduledExecutorService stopping;
		synchronized (this) {
			stopping = this.flusher;
			this.flusher = null;
		}
		if (stopping != null) {
			// No interrupt: a flush in progress would run its NATS calls on an interrupted thread and
			// could put its counts back after the final flush below, which waits for it instead.
			stopping.shutdown();
		}
		flushQuietly();
	}

	/**
	 * Adds the counts not yet added to the bucket now.
	 * @throws IOException when the server did not answer (the counts are kept for the next flush)
	 * @throws JetStreamApiException when the server refused (the counts are kept for the next flush)
	 */
	public void flush() throws IOException, JetStreamApiException {
		this.flushing.lock();
		try {
			addPending();
		}
		finally {
			this.flushing.unlock();
		}
	}

	private void addPending() throws IOException, JetStreamApiException {
		Map<String, MonthlyCounts> taken;
		synchronized (this) {
			taken = new TreeMap<>(this.pending);
			this.pending.clear();
		}
		try {
			for (Map.Entry<String, MonthlyCounts> entry : List.copyOf(taken.entrySet())) {
				this.bucket.add(entry.getKey(), entry.getValue());
				taken.remove(entry.getKey());
			}
		}
		finally {
			synchronized (this) {
				taken.forEach((month, counts) -> this.pending.merge(month, counts, MonthlyCounts::plus));
			}
		}
	}

	private void flushQuietly() {
		boolean interrupted = Thread.interrupted();
		try {
			flush();
		}
		catch (Exception ex) {
			warn(ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private synchronized void warn(Exception ex) {
		Instant now = this.clock.instant();
		if (this.lastWarning == null || Duration.between(this.lastWarning, now).compareTo(WARNING_INTERVAL) >= 0) {
			this.lastWarning = now;
			logger.warn("Monthly counts could not be added to bucket '" + this.bucket.name() + "' (kept for the next "
					+ "try): " + ex);
		}
	}

	private synchronized void count(MonthlyCounts counts) {
		this.pending.merge(month(this.clock.instant()), counts, MonthlyCounts::plus);
	}

	/** The month (UTC) of an instant; formatted only when the instant leaves the last month's span. */
	private String month(Instant now) {
		if (now.isBefore(this.monthStart) || !now.isBefore(this.monthEnd)) {
			YearMonth month = YearMonth.from(now.atZone(ZoneOffset.UTC));
			this.month = month.toString();
			this.monthStart = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
			this.monthEnd = month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
		}
		return this.month;
	}

}
