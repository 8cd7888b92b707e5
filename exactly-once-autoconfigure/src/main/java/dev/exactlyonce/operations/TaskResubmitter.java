package dev.exactlyonce.operations;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.PublishAck;

import dev.exactlyonce.listener.ClaimOwners;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.OperatorAction;

/**
 * Resubmits a completed or failed task on purpose (a controlled resubmit): reopens its record with
 * an audit entry and an empty step journal, then republishes its message, still on its stream, as
 * {@code <key>/resubmit-<n>}. The task runs once more, and once only: the copy runs under the
 * task's key. A stream that removed the message (WorkQueue, Interest) cannot give it back: the
 * service that published the task resubmits it with
 * {@link dev.exactlyonce.publish.ExactlyOncePublisher#resubmit}.
 */
public class TaskResubmitter {

	private final Connection connection;

	private final IdempotencyStore store;

	private final OperatedConsumers consumers;

	private final KeyReopener reopener;

	private final Republisher republisher;

	/**
	 * Creates the resubmitter.
	 * @param connection the NATS connection
	 * @param store the idempotency store
	 * @param consumers the declared consumers
	 * @param reopener records the resubmit on the record
	 * @param republisher publishes the copy
	 */
	public TaskResubmitter(Connection connection, IdempotencyStore store, OperatedConsumers consumers,
			KeyReopener reopener, Republisher republisher) {
		this.connection = connection;
		this.store = store;
		this.consumers = consumers;
		this.reopener = reopener;
		this.republisher = republisher;
	}

	/**
	 * Resubmits a task from its stream.
	 * @param consumer the consumer whose listener runs it
	 * @param key its key, without namespace
	 * @param operator who resubmits it
	 * @param reason why
	 * @return what was done
	 * @throws OperationRefusedException when the task's state does not allow a resubmit, or its copy
	 * was not stored or not answered for (then the answer says that the resubmit is recorded and how
	 * to tell whether its copy ran before asking again)
	 */
	public OperationOutcome resubmit(String consumer, String key, String operator, String reason) {
		ConsumerSettings settings = this.consumers.settings(consumer);
		IdempotencyRecord record = find(this.consumers.storeKey(consumer, key))
			.orElseThrow(() -> OperationRefusedException.notFound("The store holds no record of key '" + key
					+ "' of consumer '" + consumer + "' (never claimed, or older than "
					+ "exactlyonce.store.completed-ttl): publish it as a new task instead"));
		MessageInfo original = original(settings, key, record);
		refuseWhilePending(settings, key, record, original);
		int number = this.reopener.reopen(consumer, key, OperatorAction.Kind.RESUBMIT, 0, operator, reason);
		String messageId = key + "/resubmit-" + number;
		PublishAck ack;
		try {
			ack = this.republisher.publish(original, original.getSubject(), settings.stream(), key, messageId);
		}
		catch (OperationRefusedException ex) {
			if (ex.getCause() instanceof JetStreamApiException) {
				throw ex;
			}
			throw OperationRefusedException.unavailable("RESUBMIT " + number + " of task '" + key + "' of consumer '"
					+ consumer + "' is recorded. " + ex.getMessage() + ". If the copy was stored it may have run "
					+ "by now: read the task before asking again. While the task is FAILED with last outcome 'RESUBMIT "
					+ number + " by " + operator + ": ...' its copy has not run, and asking again publishes that copy; "
					+ "once the copy ran, another resubmit runs the task once more", ex);
		}
		return new OperationOutcome(consumer, key, OperatorAction.Kind.RESUBMIT, number, 0, messageId, ack.getSeqno(),
				ack.isDuplicate());
	}

	/**
	 * Refuses a resubmit while an earlier one has not run yet (its copy would be acked as this one's
	 * duplicate), after publishing that earlier copy again under its own message id: a copy whose
	 * publish failed is stored now, one stored already is answered as a duplicate by the stream.
	 * A resubmit racing with the earlier one is refused by the compare-and-set in {@link KeyReopener}.
	 */
	private void refuseWhilePending(ConsumerSettings settings, String key, IdempotencyRecord record,
			MessageInfo original) {
		Optional<OperatorAction> pending = record.pendingReopen()
			.filter((action) -> action.kind() == OperatorAction.Kind.RESUBMIT);
		if (pending.isEmpty()) {
			return;
		}
		String messageId = key + "/resubmit-" + pending.get().number();
		PublishAck ack = this.republisher.publish(original, original.getSubject(), settings.stream(), key, messageId);
		throw OperationRefusedException.conflict("Task '" + key + "' of consumer '" + settings.consumer() + "' was "
				+ "resubmitted by " + pending.get().operator() + " at " + pending.get().at() + " (RESUBMIT "
				+ pending.get().number() + ") and its copy '" + messageId + "' (stream '" + settings.stream()
				+ "', sequence " + ack.getSeqno() + ") has not run yet: the task is " + RecordFacts.of(record, Instant.now())
				+ ". Another resubmit now would be acked as that copy's duplicate, not run: wait until the task is "
				+ "COMPLETED or FAILED again, then resubmit it");
	}

	/**
	 * Whether a consumer's stream keeps acknowledged messages (Limits retention), so that its tasks
	 * can be resubmitted from it.
	 * @param consumer the consumer
	 * @return the answer, or empty when the stream could not be read
	 */
	public Optional<Boolean> canResubmit(String consumer) {
		String stream = this.consumers.settings(consumer).stream();
		try {
			return Optional.of(this.connection.jetStreamManagement().getStreamInfo(stream).getConfiguration()
				.getRetentionPolicy() == RetentionPolicy.Limits);
		}
		catch (IOException | JetStreamApiException ex) {
			return Optional.empty();
		}
	}

	private MessageInfo original(ConsumerSettings settings, String key, IdempotencyRecord record) {
		OptionalLong sequence = (record.streamSequence() > 0) ? OptionalLong.of(record.streamSequence())
				: ClaimOwners.streamSequenceOf(record.owner());
		MessageInfo original = null;
		if (sequence.isPresent()) {
			try {
				original = this.connection.jetStreamManagement().getMessage(settings.stream(), sequence.getAsLong());
			}
			catch (JetStreamApiException ex) {
				// not on the stream any more: refused below
			}
			catch (IOException ex) {
				throw OperationRefusedException.unavailable("Stream '" + settings.stream() + "' could not be read: "
						+ ex.getMessage() + ". Try again", ex);
			}
		}
		if (original == null) {
			throw OperationRefusedException.conflict("The message of task '" + key + "' of consumer '" + settings.consumer()
					+ "' is no longer on stream '" + settings.stream() + "'"
					+ (sequence.isPresent() ? " at sequence " + sequence.getAsLong() : "")
					+ " (WorkQueue and Interest streams remove acknowledged messages): resubmit it from the service "
					+ "that publishes it, with ExactlyOncePublisher.resubmit");
		}
		return original;
	}

	/** The record of a key; one whose step journal lost a sealed part still names the message to resubmit. */
	private Optional<IdempotencyRecord> find(String storeKey) {
		try {
			return this.store.find(storeKey);
		}
		catch (JournalPartMissingException ex) {
			return Optional.ofNullable(ex.record());
		}
	}

}
