package dev.exactlyonce.actuate;

import java.util.Collection;
import java.util.List;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nats.client.api.ConsumerInfo;

import dev.exactlyonce.listener.ConsumerSettings;

/**
 * Gauges of each declared consumer's server-side state: pending, ack pending and redelivered
 * messages. Polled through {@link ConsumerStates} when the registry reads them; {@code NaN} while
 * the server cannot be asked.
 */
public class ConsumerMetrics implements MeterBinder {

	private final ConsumerStates states;

	private final List<ConsumerSettings> consumers;

	/**
	 * Creates the binder.
	 * @param states the consumer state reader
	 * @param consumers the declared consumers
	 */
	public ConsumerMetrics(ConsumerStates states, Collection<ConsumerSettings> consumers) {
		this.states = states;
		this.consumers = List.copyOf(consumers);
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (ConsumerSettings consumer : this.consumers) {
			gauge(registry, consumer, ExactlyOnceMeters.CONSUMER_PENDING,
					"Messages in the stream not yet delivered to the consumer", ConsumerInfo::getNumPending);
			gauge(registry, consumer, ExactlyOnceMeters.CONSUMER_ACK_PENDING,
					"Messages delivered to the consumer and not yet acknowledged", ConsumerInfo::getNumAckPending);
			gauge(registry, consumer, ExactlyOnceMeters.CONSUMER_REDELIVERED,
					"Messages of the consumer that were delivered more than once and are not yet acknowledged",
					ConsumerInfo::getRedelivered);
		}
	}

	private void gauge(MeterRegistry registry, ConsumerSettings consumer, String name, String description,
			ToLongFunction<ConsumerInfo> value) {
		Gauge.builder(name, this.states, (states) -> {
			ConsumerInfo info = states.get(consumer.stream(), consumer.consumer());
			return (info != null) ? value.applyAsLong(info) : Double.NaN;
		}).description(description).tags("stream", consumer.stream(), "consumer", consumer.consumer()).register(registry);
	}

}
