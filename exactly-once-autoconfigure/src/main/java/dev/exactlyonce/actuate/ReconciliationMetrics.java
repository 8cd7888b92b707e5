package dev.exactlyonce.actuate;

import java.util.Collection;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.exactlyonce.audit.ConsumerReconciliation;
import dev.exactlyonce.audit.Discrepancy;
import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.audit.Reconciliations;
import dev.exactlyonce.listener.ConsumerSettings;

/**
 * Exposes the latest reconciliation as gauges (message counts by state, discrepancies by type,
 * per consumer) and counts runs, so an alert can fire on any discrepancy. Gauges read
 * {@code NaN} before the first run.
 */
public class ReconciliationMetrics implements MeterBinder {

	private final Reconciliations reconciliations;

	private final List<ConsumerSettings> consumers;

	/**
	 * Creates the binder.
	 * @param reconciliations the runner keeping the reports
	 * @param consumers the declared consumers
	 */
	public ReconciliationMetrics(Reconciliations reconciliations, Collection<ConsumerSettings> consumers) {
		this.reconciliations = reconciliations;
		this.consumers = List.copyOf(consumers);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (ConsumerSettings consumer : this.consumers) {
			messages(registry, consumer, "published", ConsumerReconciliation::published);
			messages(registry, consumer, "completed",
					(c) -> (c.completed() != null) ? c.completed() : Double.NaN);
			messages(registry, consumer, "dead_lettered", ConsumerReconciliation::deadLettered);
			messages(registry, consumer, "unfinished", ConsumerReconciliation::unfinished);
			for (Discrepancy.Type type : Discrepancy.Type.values()) {
				Gauge.builder(ExactlyOnceMeters.RECONCILIATION_DISCREPANCIES, this,
						(self) -> self.value(consumer, (c) -> c.discrepancies().stream().filter((d) -> d.type() == type).count()))
					.description("Discrepancies found by the last reconciliation")
					.tags("stream", consumer.stream(), "consumer", consumer.consumer(), "type",
							type.name().toLowerCase(java.util.Locale.ROOT))
					.register(registry);
			}
		}
		FunctionCounter.builder(ExactlyOnceMeters.RECONCILIATION_RUNS, this.reconciliations, Reconciliations::successes)
			.description("Reconciliation runs")
			.tags("outcome", "success")
			.register(registry);
		FunctionCounter.builder(ExactlyOnceMeters.RECONCILIATION_RUNS, this.reconciliations, Reconciliations::failures)
			.description("Reconciliation runs")
			.tags("outcome", "failure")
			.register(registry);
	}

	private void messages(MeterRegistry registry, ConsumerSettings consumer, String state,
			ToDoubleFunction<ConsumerReconciliation> value) {
		Gauge.builder(ExactlyOnceMeters.RECONCILIATION_MESSAGES, this, (self) -> self.value(consumer, value))
			.description("Messages counted by the last reconciliation, by state")
			.tags("stream", consumer.stream(), "consumer", consumer.consumer(), "state", state)
			.register(registry);
	}

	private double value(ConsumerSettings consumer, ToDoubleFunction<ConsumerReconciliation> value) {
		ReconciliationReport report = this.reconciliations.latest();
		if (report == null) {
			return Double.NaN;
		}
		return report.consumers()
			.stream()
			.filter((c) -> c.consumer().equals(consumer.consumer()))
			.findFirst()
			.map(value::applyAsDouble)
			.orElse(Double.NaN);
	}

}
