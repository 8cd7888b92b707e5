package dev.exactlyonce.waits;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.nats.LockedKvBucket;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.Republisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.MeasuredStoreClock;
import dev.exactlyonce.store.natskv.NatsKvServerTime;
import dev.exactlyonce.waits.spi.TaskWaits;

/**
 * Durable waits, assembled: what the pipeline calls ({@link #taskWaits()}), the signals' sender
 * ({@link #signals()}) and the reader of the tickets ({@link #timer()}), over one bucket, one stream
 * and one consumer on NATS.
 */
public final class DurableWaits {

	private final NatsTaskWaits taskWaits;

	private final ExactlyOnceSignals signals;

	private final WaitTimer timer;

	private final DecisionDelivery delivery;

	private DurableWaits(NatsTaskWaits taskWaits, ExactlyOnceSignals signals, DecisionDelivery delivery, WaitTimer timer) {
		this.taskWaits = taskWaits;
		this.signals = signals;
		this.delivery = delivery;
		this.timer = timer;
	}

	/**
	 * Opens the waits, creating their bucket, stream and consumer when allowed to.
	 * @param connection the NATS connection
	 * @param store the idempotency store
	 * @param consumers the declared consumers
	 * @param mapper the application's JSON mapper (signal payloads)
	 * @param settings where the waits are kept
	 * @param keepFor how long decisions and tickets are kept: {@code completed-ttl} plus the longest wait
	 * @param maxPayloadBytes the largest signal payload ({@code exactlyonce.steps.max-result-size})
	 * @param meters told of resumptions
	 * @param observers told when a decision's delivery reaches a {@link WaitPoint}, in order
	 * @return the waits
	 * @throws IllegalStateException when NATS refused or did not answer
	 */
	public static DurableWaits open(Connection connection, IdempotencyStore store, OperatedConsumers consumers,
			JsonMapper mapper, WaitsSettings settings, Duration keepFor, long maxPayloadBytes, WaitsMeters meters,
			List<WaitObserver> observers) {
		KeyValue bucket = LockedKvBucket.open(connection, new LockedKvBucket.Spec(settings.bucket(),
				"exactlyonce.waits.bucket", "exactly-once: what ended each durable wait (a signal, or its timeout)",
				keepFor, settings.requestTimeout(), settings.create(),
				", or set exactlyonce.waits.enabled=false (handlers then cannot sleep or await signals)."));
		Duration ticketAckWait;
		try {
			ticketAckWait = new WaitsProvisioner(connection, settings).provision(keepFor);
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not create or read the durable waits' stream '" + settings.stream()
					+ "' (exactlyonce.waits.stream): " + ex.getMessage(), ex);
		}
		Clock clock = Clock.systemUTC();
		WaitDecisions decisions = new WaitDecisions(bucket);
		WaitTickets tickets = new WaitTickets(connection, settings);
		WaitResumer resumer = new WaitResumer(store, new Republisher(connection), clock, meters);
		NatsTaskWaits taskWaits = new NatsTaskWaits(settings, decisions, tickets, resumer, mapper,
				new MeasuredStoreClock(clock, new NatsKvServerTime(bucket)));
		DecisionDelivery delivery = new DecisionDelivery(store, decisions, tickets, resumer, new WaitEntries(mapper), clock,
				observed(observers));
		ExactlyOnceSignals signals = new ExactlyOnceSignals(consumers, delivery, mapper, maxPayloadBytes);
		return new DurableWaits(taskWaits, signals, delivery,
				new WaitTimer(connection, store, taskWaits, resumer, consumers::declares, ticketAckWait));
	}

	/** One observer telling every one of {@code observers} in order. */
	private static WaitObserver observed(List<WaitObserver> observers) {
		List<WaitObserver> all = List.copyOf(observers);
		return all.isEmpty() ? WaitObserver.NONE
				: (point, storeKey, name) -> all.forEach((observer) -> observer.onPoint(point, storeKey, name));
	}

	/**
	 * What the pipeline calls.
	 * @return the task waits
	 */
	public TaskWaits taskWaits() {
		return this.taskWaits;
	}

	/**
	 * Resumes a task suspended at a limit now, if it still waits there.
	 * @param storeKey the task's store key
	 * @param reason what freed up, for its audit
	 * @throws dev.exactlyonce.store.StoreUnavailableException when NATS or the store did not answer
	 * (its ticket resumes it at its deadline)
	 */
	public void wakeLimited(String storeKey, String reason) {
		this.taskWaits.wake(storeKey, reason);
	}

	/**
	 * The signals' sender.
	 * @return the signals
	 */
	public ExactlyOnceSignals signals() {
		return this.signals;
	}

	/**
	 * The delivery of decisions and notices to waits, for the waits built on them (child tasks).
	 * @return the delivery
	 */
	public DecisionDelivery decisions() {
		return this.delivery;
	}

	/**
	 * The reader of the tickets, to start with the application.
	 * @return the timer
	 */
	public WaitTimer timer() {
		return this.timer;
	}

}
