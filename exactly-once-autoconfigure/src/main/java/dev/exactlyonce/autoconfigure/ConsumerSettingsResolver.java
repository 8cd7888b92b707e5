package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.nats.client.api.ConsumerConfiguration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.store.StoreNamespaces;

/**
 * Resolves a declared consumer into {@link ConsumerSettings} and checks the timing invariants the
 * pipeline relies on. Every violation fails start-up with a message naming the property and a
 * fix.
 */
public class ConsumerSettingsResolver {

	private static final Log logger = LogFactory.getLog(ConsumerSettingsResolver.class);

	private final ExactlyOnceProperties properties;

	/**
	 * Creates the resolver.
	 * @param properties all exactly-once properties
	 */
	public ConsumerSettingsResolver(ExactlyOnceProperties properties) {
		this.properties = properties;
	}

	/**
	 * Validates one consumer as declared, before it is provisioned; warns of nothing (the
	 * consumer the server then holds is resolved, and warned of, once).
	 * @param name the durable name
	 * @param declared the consumer configuration declared
	 * @throws ExactlyOnceConfigurationException on any violated invariant
	 */
	public void validate(String name, ConsumerConfiguration declared) {
		settings(name, declared, false);
	}

	/**
	 * Resolves and validates one consumer, and warns of settings that work but hurt.
	 * @param name the durable name
	 * @param server the consumer configuration the server reports
	 * @return the settings
	 * @throws ExactlyOnceConfigurationException on any violated invariant
	 */
	public ConsumerSettings resolve(String name, ConsumerConfiguration server) {
		return settings(name, server, true);
	}

	private ConsumerSettings settings(String name, ConsumerConfiguration server, boolean warn) {
		ConsumerProperties spec = this.properties.getConsumers().get(name);
		String prefix = "exactlyonce.consumers." + name + ".";
		if (spec.getStream() == null || spec.getStream().isBlank()) {
			throw new ExactlyOnceConfigurationException("Consumer '" + name + "' names no stream",
					"Set " + prefix + "stream to the stream it reads.");
		}
		List<Duration> backoff = server.getBackoff().isEmpty() ? spec.getBackoff() : server.getBackoff();
		Duration effectiveAckWait = effectiveAckWait(server.getAckWait(), backoff);
		Duration lease = this.properties.getStore().getLease();
		Duration interval = workingAckInterval(prefix, spec, effectiveAckWait, lease);
		checkLease(prefix, interval, lease);
		checkRequestTimeout(lease);
		checkMaxDeliver(prefix, server.getMaxDeliver(), backoff);
		checkCompletedTtl(prefix, server.getAckWait(), server.getMaxDeliver(), backoff);
		checkConcurrency(prefix, spec);
		if (spec.getNamespace() != null) {
			StoreNamespaces.check(spec.getNamespace(), prefix + "namespace");
		}
		if (warn) {
			warnWhenWorkersWaitForAckPendingSlots(name, prefix, spec, server.getMaxAckPending());
			warnWhenRetriesCanBlockTheQueue(name, prefix, spec, server.getMaxAckPending(), backoff);
		}
		return new ConsumerSettings(name, spec.getStream(), effectiveAckWait, interval, lease, List.copyOf(backoff),
				spec.getRetryDelay(), server.getMaxDeliver(), spec.getConcurrency(), spec.getOnAbandoned(),
				spec.getPullExpiry(), deadLetterSubject(name, spec), spec.getMaxPayloadSize().toBytes(),
				List.copyOf(spec.getNonRetryableExceptions()), spec.getNamespace());
	}

	/**
	 * The shortest ack wait of any delivery: with backoff, the server waits {@code backoff[n-1]}
	 * for delivery n instead of the ack wait.
	 */
	static Duration effectiveAckWait(Duration serverAckWait, List<Duration> backoff) {
		Duration shortest = serverAckWait;
		for (Duration delay : backoff) {
			if (delay.compareTo(shortest) < 0) {
				shortest = delay;
			}
		}
		return shortest;
	}

	private String deadLetterSubject(String name, ConsumerProperties spec) {
		if (spec.getDeadLetterSubject() != null) {
			return spec.getDeadLetterSubject();
		}
		return this.properties.getDeadLetter().getSubjectPrefix() + "." + spec.getStream() + "." + name;
	}

	/** Configured, or a third of the shorter of the effective ack wait and the lease. */
	private static Duration workingAckInterval(String prefix, ConsumerProperties spec, Duration effectiveAckWait,
			Duration lease) {
		Duration configured = spec.getWorkingAckInterval();
		if (configured == null) {
			return ((lease.compareTo(effectiveAckWait) < 0) ? lease : effectiveAckWait).dividedBy(3);
		}
		if (configured.isNegative() || configured.isZero() || configured.compareTo(effectiveAckWait) >= 0) {
			throw new ExactlyOnceConfigurationException(
					prefix + "working-ack-interval is " + DurationText.of(configured) + " but the effective ack wait is "
							+ DurationText.of(effectiveAckWait) + " (the shortest of ack-wait and backoff entries): messages would be "
							+ "redelivered while their handler still runs",
					"Set " + prefix + "working-ack-interval below " + DurationText.of(effectiveAckWait)
							+ " (a third of it is safe) or remove it to use the default.");
		}
		return configured;
	}

	private static void checkLease(String prefix, Duration interval, Duration lease) {
		if (lease.compareTo(interval.multipliedBy(2)) < 0) {
			throw new ExactlyOnceConfigurationException(
					"exactlyonce.store.lease is " + DurationText.of(lease) + " but " + prefix + "working-ack-interval resolves to "
							+ DurationText.of(interval) + ": one late renewal would let another worker take over a running handler",
					"Set exactlyonce.store.lease to at least twice the working-ack interval ("
							+ DurationText.of(interval.multipliedBy(2))
							+ ") or shorten " + prefix + "working-ack-interval.");
		}
	}

	private void checkRequestTimeout(Duration lease) {
		StoreCallTimeouts.requireBelowLease("exactlyonce.nats.request-timeout",
				this.properties.getNats().getRequestTimeout(), lease, "exactlyonce.nats.request-timeout");
	}

	private static void checkMaxDeliver(String prefix, long maxDeliver, List<Duration> backoff) {
		if (maxDeliver > 0 && !backoff.isEmpty() && maxDeliver <= backoff.size()) {
			throw new ExactlyOnceConfigurationException(
					prefix + "max-deliver is " + maxDeliver + " but " + prefix + "backoff has " + backoff.size()
							+ " entries; the server requires max-deliver to exceed the number of backoff entries",
					"Set " + prefix + "max-deliver to at least " + (backoff.size() + 1) + " or shorten " + prefix
							+ "backoff.");
		}
	}

	private void checkCompletedTtl(String prefix, Duration ackWait, long maxDeliver, List<Duration> backoff) {
		Duration completedTtl = this.properties.getStore().getCompletedTtl();
		if (maxDeliver <= 0) {
			return;
		}
		Duration redeliveryHorizon = ackWait.multipliedBy(maxDeliver);
		for (Duration delay : backoff) {
			redeliveryHorizon = redeliveryHorizon.plus(delay);
		}
		if (completedTtl.compareTo(redeliveryHorizon) <= 0) {
			throw new ExactlyOnceConfigurationException(
					"exactlyonce.store.completed-ttl is " + DurationText.of(completedTtl) + " but messages of " + prefix
							+ " can be redelivered for up to " + DurationText.of(redeliveryHorizon)
							+ " (ack-wait x max-deliver + sum(backoff)): a completed task could run again",
					"Set exactlyonce.store.completed-ttl above " + DurationText.of(redeliveryHorizon) + " or lower " + prefix
							+ "max-deliver / ack-wait / backoff.");
		}
	}

	private static void checkConcurrency(String prefix, ConsumerProperties spec) {
		if (spec.getConcurrency() < 1) {
			throw new ExactlyOnceConfigurationException(prefix + "concurrency is " + spec.getConcurrency(),
					"Set " + prefix + "concurrency to 1 or more.");
		}
	}

	private void warnWhenWorkersWaitForAckPendingSlots(String name, String prefix, ConsumerProperties spec,
			long maxAckPending) {
		if (maxAckPending > 0 && maxAckPending < spec.getConcurrency()) {
			logger.warn("Consumer '" + name + "': max-ack-pending " + maxAckPending + " is below concurrency "
					+ spec.getConcurrency() + ", so some workers will stay idle; raise " + prefix + "max-ack-pending.");
		}
		else if (this.properties.getListener().isPipelined() && maxAckPending > 0
				&& maxAckPending < 2L * spec.getConcurrency()) {
			logger.warn("Consumer '" + name + "': max-ack-pending " + maxAckPending + " is below "
					+ 2L * spec.getConcurrency() + ", the messages a pipelined listener (exactlyonce.listener.pipelined) "
					+ "keeps in flight with concurrency " + spec.getConcurrency() + ", so workers wait for records being "
					+ "written; raise " + prefix + "max-ack-pending to " + 2L * spec.getConcurrency() + " or more.");
		}
	}

	/**
	 * A failed task waits out its retry delay (a {@code nakWithDelay}) holding its ack-pending slot,
	 * so with no slot above concurrency, that many failing tasks stop everything behind them.
	 */
	private static void warnWhenRetriesCanBlockTheQueue(String name, String prefix, ConsumerProperties spec,
			long maxAckPending, List<Duration> backoff) {
		if (maxAckPending <= 0 || maxAckPending > spec.getConcurrency()) {
			return;
		}
		Duration longestDelay = spec.getRetryDelay();
		for (Duration delay : backoff) {
			longestDelay = (delay.compareTo(longestDelay) > 0) ? delay : longestDelay;
		}
		logger.warn(prefix + "max-ack-pending is " + maxAckPending + ", the same as its concurrency: a task waiting "
				+ "out its retry delay (up to " + DurationText.of(longestDelay) + ") keeps its slot, so " + maxAckPending
				+ " failing tasks stop the whole consumer '" + name + "' until their delays end. Raise " + prefix
				+ "max-ack-pending (default 1000) unless tasks must run strictly one after another.");
	}

}
