package dev.exactlyonce.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskStatus;

/**
 * The gauge of each consumer's waiting tasks ({@code exactlyonce.waits.waiting}), fleet-wide: a count
 * of the store's WAITING records, read by one scan of the whole store ({@link TaskInspector#counts()})
 * at most once per {@code maxAge}, and only while something reads the gauge. The scan runs on a
 * thread of its own (a registry's read never waits for it) and the gauge shows the last count:
 * {@code NaN} until the first count is done, when the store cannot list its records, and when the
 * last count failed.
 */
public class WaitingTasksMetrics implements MeterBinder {

	private static final Log logger = LogFactory.getLog(WaitingTasksMetrics.class);

	private final TaskInspector inspector;

	private final List<ConsumerSettings> consumers;

	private final Duration maxAge;

	private final Clock clock;

	private final AtomicBoolean counting = new AtomicBoolean();

	private volatile Counts last;

	/**
	 * Creates the binder.
	 * @param inspector counts the store's records by status
	 * @param consumers the declared consumers
	 * @param maxAge how long a count serves the gauges
	 * @param clock the clock that ages the count
	 */
	public WaitingTasksMetrics(TaskInspector inspector, Collection<ConsumerSettings> consumers, Duration maxAge,
			Clock clock) {
		this.inspector = inspector;
		this.consumers = List.copyOf(consumers);
		this.maxAge = maxAge;
		this.clock = clock;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (ConsumerSettings consumer : this.consumers) {
			Gauge.builder(ExactlyOnceMeters.WAITS_WAITING, this, (self) -> self.waiting(consumer.consumer()))
				.description("Tasks suspended at a durable wait (all instances), counted in the store at most once a "
						+ "minute")
				.tags("stream", consumer.stream(), "consumer", consumer.consumer())
				.register(registry);
		}
	}

	/**
	 * The last count of a consumer's waiting tasks; starts a new count when it is older than the max age.
	 * @param consumer the consumer
	 * @return the count, or {@code NaN}
	 */
	double waiting(String consumer) {
		Counts counts = this.last;
		if ((counts == null || counts.readAt().plus(this.maxAge).isBefore(this.clock.instant()))
				&& this.counting.compareAndSet(false, true)) {
			Thread thread = new Thread(this::count, "exactlyonce-waiting-count");
			thread.setDaemon(true);
			thread.start();
		}
		if (counts == null || counts.waiting() == null) {
			return Double.NaN;
		}
		return counts.waiting().getOrDefault(consumer, Long.valueOf(0)).doubleValue();
	}

	private void count() {
		try {
			this.last = new Counts(this.inspector.counts().map(this::waitingOnly).orElse(null), this.clock.instant());
		}
		catch (RuntimeException ex) {
			logger.debug("Waiting tasks could not be counted: " + ex.getMessage(), ex);
			this.last = new Counts(null, this.clock.instant());
		}
		finally {
			this.counting.set(false);
		}
	}

	private Map<String, Long> waitingOnly(Map<String, Map<TaskStatus, Long>> counts) {
		Map<String, Long> waiting = new HashMap<>();
		counts.forEach((consumer, byStatus) -> waiting.put(consumer, byStatus.getOrDefault(TaskStatus.WAITING, 0L)));
		return waiting;
	}

	/** A count: waiting tasks by consumer ({@code null} when it could not be made), and when. */
	private record Counts(Map<String, Long> waiting, Instant readAt) {
	}

}
