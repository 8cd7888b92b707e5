package dev.exactlyonce.audit;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;

/**
 * Runs reconciliations one at a time and keeps the latest reports for the endpoint, the table and
 * the metrics. Logs a summary of each run (counts and sequences, never payloads).
 */
public class Reconciliations {

	private static final Log logger = LogFactory.getLog(Reconciliations.class);

	private final Reconciler reconciler;

	private final Duration window;

	private final int historySize;

	private final Deque<ReconciliationReport> history = new ArrayDeque<>();

	private long failures;

	private long successes;

	/**
	 * Creates the runner.
	 * @param reconciler the reconciler
	 * @param window the default window of a run
	 * @param historySize how many reports to keep
	 */
	public Reconciliations(Reconciler reconciler, Duration window, int historySize) {
		this.reconciler = reconciler;
		this.window = window;
		this.historySize = Math.max(1, historySize);
	}

	/**
	 * Runs a reconciliation over the default window.
	 * @return the report
	 */
	public ReconciliationReport run() {
		return run(this.window);
	}

	/**
	 * Runs a reconciliation now.
	 * @param window how far back to look
	 * @return the report
	 */
	public synchronized ReconciliationReport run(Duration window) {
		ReconciliationReport report = this.reconciler.reconcile(window);
		if (report.error() != null) {
			this.failures++;
			logger.warn("Reconciliation over " + DurationText.of(window) + " failed: " + report.error());
		}
		else {
			this.successes++;
			String summary = "Reconciliation over " + DurationText.of(window) + ": " + report.discrepancies() + " discrepancies";
			if (report.discrepancies() > 0) {
				logger.warn(summary + "; see /actuator/exactlyonce");
			}
			else {
				logger.info(summary);
			}
		}
		if (this.history.size() >= this.historySize) {
			this.history.removeFirst();
		}
		this.history.addLast(report);
		return report;
	}

	/**
	 * The latest report.
	 * @return the report, or {@code null} before the first run
	 */
	public synchronized ReconciliationReport latest() {
		return this.history.peekLast();
	}

	/**
	 * The kept reports, oldest first.
	 * @return the reports
	 */
	public synchronized List<ReconciliationReport> history() {
		return List.copyOf(this.history);
	}

	/**
	 * How many runs failed to read the server or store.
	 * @return the count
	 */
	public synchronized long failures() {
		return this.failures;
	}

	/**
	 * How many runs completed.
	 * @return the count
	 */
	public synchronized long successes() {
		return this.successes;
	}

}
