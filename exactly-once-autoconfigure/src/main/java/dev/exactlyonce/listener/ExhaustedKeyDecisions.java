package dev.exactlyonce.listener;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

import io.nats.client.JetStreamApiException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.exhausted.ExhaustedKeys;
import dev.exactlyonce.nats.RawStreamMessage;
import dev.exactlyonce.store.ClaimResult;
import dev.exactlyonce.store.Completion;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.store.StoreUnavailableException;

/**
 * Decides, on its key's record, what becomes of a message of one listener whose deliveries ran out
 * without any attempt settling it (see {@link dev.exactlyonce.exhausted.ExhaustedDeliveries}):
 * <ul>
 * <li>completed key: a duplicate, only the ack was lost; already dead-lettered key: nothing more;
 * either way the copy is noted on the key's record first ({@link DuplicateTrace});</li>
 * <li>key held by a live attempt: decided again when that attempt's lease ends, so a copy that
 * waited for a long task is settled as a duplicate of it rather than dead-lettered;</li>
 * <li>key whose last attempt (released for a retry, or abandoned) was another copy's that the consumer
 * may still deliver: decided again at the working-ack pace until the key is final or this message
 * made its last attempt, so a copy running out of deliveries never ends a task another copy is still
 * retrying (a copy that is gone, requeued away or terminated, is not waited for);</li>
 * <li>key whose last attempt was this message's, released by a routine shutdown: requeued (see
 * {@link Requeue}), since shutdowns, not failures, used up its deliveries;</li>
 * <li>key whose last attempt was this message's, abandoned or failed, with attempts left (its
 * deliveries went on waiting for a dead holder's lease): requeued as well;</li>
 * <li>otherwise: dead-lettered, and its key marked.</li>
 * </ul>
 */
final class ExhaustedKeyDecisions implements ExhaustedKeys {

	private static final Log logger = LogFactory.getLog(ExhaustedKeyDecisions.class);

	private static final Duration RECHECK_MARGIN = Duration.ofMillis(500);

	private final ListenerEndpoint endpoint;

	private final ConsumerSettings settings;

	private final ArgumentResolver arguments;

	private final KeyResolver keys;

	private final IdempotencyStore store;

	private final DeliverySettler settler;

	private final Requeue requeue;

	private final String owner;

	private final Clock clock;

	private final DuplicateTrace duplicates;

	private final CompletionParking parking;

	ExhaustedKeyDecisions(ListenerEndpoint endpoint, ConsumerSettings settings, ArgumentResolver arguments,
			KeyResolver keys, IdempotencyStore store, DeliverySettler settler, Requeue requeue, String owner, Clock clock,
			CompletionParking parking) {
		this.parking = parking;
		this.endpoint = endpoint;
		this.settings = settings;
		this.arguments = arguments;
		this.keys = keys;
		this.store = store;
		this.duplicates = new DuplicateTrace(store);
		this.settler = settler;
		this.requeue = requeue;
		this.owner = owner;
		this.clock = clock;
	}

	@Override
	public Decision decide(RawStreamMessage stored, long deliveries, String reason, Copies copies)
			throws IOException, JetStreamApiException {
		Delivery delivery = new Delivery(stored.toMessage(), stored.sequence(), deliveries, this.endpoint,
				this.settings);
		resolveKey(delivery);
		IdempotencyRecord record = (delivery.key() != null) ? this.store.find(delivery.storeKey()).orElse(null) : null;
		Instant now = this.clock.instant();
		if (record != null && record.isLiveClaim(now)) {
			return new Decision.Recheck(
					this.settings.waitForHolder(1, Duration.between(now, record.leaseUntil())).plus(RECHECK_MARGIN),
					"Message at " + delivery.describe() + " ran out of deliveries while its key is held by a running "
							+ "attempt of " + record.owner() + "; it is settled once that attempt ends");
		}
		OptionalLong lastAttempt = (record != null && !record.isFinal())
				? ClaimOwners.streamSequenceOf(record.owner()) : OptionalLong.empty();
		if (lastAttempt.isPresent() && lastAttempt.getAsLong() != stored.sequence()
				&& copies.mayBeDeliveredAgain(lastAttempt.getAsLong())) {
			return new Decision.Recheck(this.settings.workingAckInterval(), "Message at " + delivery.describe()
					+ " ran out of deliveries while its key's last attempt, made for the copy at sequence "
					+ lastAttempt.getAsLong() + ", was released or abandoned and may still be retried by that copy; it "
					+ "is settled once the key is completed or dead-lettered, or attempted by this message");
		}
		DeliveryOutcome outcome;
		if (record != null && record.state() == RecordState.IN_PROGRESS && recordedParkedCompletion(delivery, record)) {
			outcome = DeliveryOutcome.COMPLETION_RECOVERED;
		}
		else if (record != null && record.state() == RecordState.FAILED
				&& IdempotencyStore.RELEASED_BY_SHUTDOWN.equals(record.resultSummary())) {
			this.requeue.publishCopy(delivery, DeliverySettler.SHUTDOWNS);
			outcome = DeliveryOutcome.RETRIED;
		}
		else if (record != null && !record.isFinal() && !this.settings.isLastKeyAttempt(record.attempts())) {
			this.requeue.publishCopy(delivery, "while its key made " + record.attempts() + " of its "
					+ this.settings.maxDeliver() + " attempts (the others waited for the lease of an attempt that "
					+ "ended mid-work, or for a retry delay): a crash never dead-letters a task with attempts left");
			outcome = DeliveryOutcome.RETRIED;
		}
		else if (record != null && record.state() == RecordState.COMPLETED) {
			logger.info("Message at " + delivery.describe() + " ran out of deliveries but its key is completed; "
					+ "removing this copy as a duplicate");
			this.duplicates.note(delivery);
			outcome = DeliveryOutcome.DUPLICATE;
		}
		else if (record != null && record.state() == RecordState.DEAD_LETTERED) {
			logger.warn(DeliverySettler.alreadyDeadLettered(delivery, "removed after its last delivery"));
			this.duplicates.note(delivery);
			outcome = DeliveryOutcome.ALREADY_DEAD_LETTERED;
		}
		else {
			if (!this.settler.publishDeadLetter(delivery, reason, null)) {
				return new Decision.DeadLetterNotStored();
			}
			this.settler.claimAndMark(delivery, reason);
			outcome = DeliveryOutcome.DEAD_LETTERED;
		}
		return new Decision.Settled(() -> this.settler.outcome(delivery, outcome));
	}

	private void resolveKey(Delivery delivery) {
		try {
			delivery.key(this.keys.resolve(delivery, () -> this.arguments.payloadForKey(delivery, null)));
		}
		catch (PoisonMessageException ex) {
			logger.warn("No idempotency key for the exhausted message at " + delivery.describe()
					+ "; dead-lettering it without marking a key");
		}
	}

	/**
	 * Records the completion that the abandoned attempt of {@code record} parked (its handler finished,
	 * the store could not take its record before it stopped or died), through a claim that takes that
	 * very attempt over, instead of dead-lettering a finished task. A copy other than the one that
	 * completed is noted as its duplicate.
	 * @return {@code true} when the record was written
	 * @throws StoreUnavailableException when the parking or the store did not answer (decided again later)
	 */
	private boolean recordedParkedCompletion(Delivery delivery, IdempotencyRecord record) {
		Optional<CompletionParking.Parked> parked = this.parking.find(delivery.storeKey());
		if (parked.isEmpty() || !parked.get().token().equals(record.token())) {
			return false;
		}
		ClaimResult result = this.store.tryClaim(delivery.storeKey(), ClaimAttempts.ownerOf(this.owner, delivery),
				this.settings.lease());
		if (!(result instanceof ClaimResult.Acquired acquired) || acquired.previousAttempt() == null
				|| !record.token().equals(acquired.previousAttempt().token())) {
			throw new StoreUnavailableException("Key of the message at " + delivery.describe() + " changed while its "
					+ "parked completion was being recorded; deciding again", null);
		}
		Completion completion = parked.get().completion();
		// parked again under this claim's token first: a failed write below leaves it to the next decision
		this.parking.park(delivery.storeKey(), new CompletionParking.Parked(acquired.claim().token(), completion));
		this.store.complete(acquired.claim(), completion);
		this.parking.remove(delivery.storeKey());
		logger.info("Message at " + delivery.describe() + " ran out of deliveries, but the attempt of its key that "
				+ "ended mid-write had finished and parked its completion: recorded now, the handler not run again");
		if (delivery.streamSequence() != completion.streamSequence()) {
			this.duplicates.note(delivery);
		}
		return true;
	}

}
