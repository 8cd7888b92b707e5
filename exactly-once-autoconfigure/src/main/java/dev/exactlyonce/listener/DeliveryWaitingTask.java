package dev.exactlyonce.listener;

import java.util.Optional;

import io.nats.client.Message;

import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * A claimed delivery as its durable waits see it: its journal is its step session's (one name space
 * for steps and waits), its {@code WAITING} record is written fenced by its claim, serialised with
 * the lease renewals.
 */
final class DeliveryWaitingTask implements WaitingTask {

	private final Delivery delivery;

	private final StepSession steps;

	private final WorkingAcks.Heartbeat heartbeat;

	private final IdempotencyStore store;

	private final int run;

	DeliveryWaitingTask(Delivery delivery, StepSession steps, WorkingAcks.Heartbeat heartbeat, IdempotencyStore store,
			int run) {
		this.delivery = delivery;
		this.steps = steps;
		this.heartbeat = heartbeat;
		this.store = store;
		this.run = run;
	}

	@Override
	public String storeKey() {
		return this.delivery.storeKey();
	}

	@Override
	public String key() {
		return this.delivery.key();
	}

	@Override
	public String consumer() {
		return this.delivery.consumer();
	}

	@Override
	public String stream() {
		return this.delivery.stream();
	}

	@Override
	public int run() {
		return this.run;
	}

	@Override
	public String token() {
		return this.delivery.claim().token();
	}

	@Override
	public int attempt() {
		return this.delivery.claim().attempt();
	}

	@Override
	public Message message() {
		return this.delivery.message();
	}

	@Override
	public String describe() {
		return this.delivery.describe();
	}

	@Override
	public Optional<StepRecord> begin(String name) {
		return Optional.ofNullable(this.steps.beginWait(name));
	}

	@Override
	public void journal(StepRecord entry) {
		this.steps.journal(entry);
	}

	@Override
	public void recordWaiting(Completion waiting) {
		Uninterrupted.call(() -> this.heartbeat.exclusive(() -> {
			IdempotencyRecord written = this.store.complete(this.delivery.claim(), waiting);
			this.heartbeat.recorded();
			return written;
		}));
	}

}
