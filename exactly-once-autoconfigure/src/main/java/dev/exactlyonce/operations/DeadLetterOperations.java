package dev.exactlyonce.operations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import io.nats.client.JetStreamApiException;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.PublishAck;

import dev.exactlyonce.children.spi.ChildFailures;
import dev.exactlyonce.audit.DeadLetters;
import dev.exactlyonce.deadletter.DeadLetterPublisher;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.store.OperatorAction;

/**
 * Lists, replays and discards a consumer's dead letters. A replay reopens the task's record with an
 * audit entry, republishes the dead letter's payload and headers to the original subject as
 * {@code <key>/replay-<dead-letter stream>-<dead-letter sequence>} (unique for ever: never the id of
 * another replay), then removes the dead letter once the copy is stored; asked twice (or by two
 * instances at once) it republishes the same message, which the stream stores once (the second
 * answer says {@code duplicate}: stored by the first) and the key's record lets run once. A
 * discard records who and why on the record, then removes the dead letter. A replay and a discard
 * of one dead letter are decided by the compare-and-set on the record that recorded the first: the
 * other is refused ({@link KeyReopener}). Both act
 * only on a dead letter its headers say this consumer parked (consumers may share a dead-letter
 * subject).
 */
public class DeadLetterOperations {

	/** The most dead letters listed at once. */
	public static final int MAX_LIST = 500;

	private final DeadLetters deadLetters;

	private final OperatedConsumers consumers;

	private final KeyReopener reopener;

	private final Republisher republisher;

	private final boolean showPayloads;

	private volatile ChildFailures childFailures = ChildFailures.NONE;

	/**
	 * Creates the operations.
	 * @param deadLetters the dead-letter stream
	 * @param consumers the declared consumers
	 * @param reopener records the actions on the tasks' records
	 * @param republisher publishes replayed copies
	 * @param showPayloads whether listings include payloads ({@code exactlyonce.operations.show-payloads})
	 */
	public DeadLetterOperations(DeadLetters deadLetters, OperatedConsumers consumers, KeyReopener reopener,
			Republisher republisher, boolean showPayloads) {
		this.deadLetters = deadLetters;
		this.consumers = consumers;
		this.reopener = reopener;
		this.republisher = republisher;
		this.showPayloads = showPayloads;
	}

	/**
	 * How many dead letters a consumer has now.
	 * @param consumer the consumer
	 * @return the count
	 */
	public long count(String consumer) {
		try {
			return this.deadLetters.count(this.consumers.settings(consumer).deadLetterSubject());
		}
		catch (IOException | JetStreamApiException ex) {
			throw unreadable(ex);
		}
	}

	/**
	 * A consumer's dead letters, oldest first.
	 * @param consumer the consumer
	 * @param fromSequence the first dead-letter stream sequence to list (1 for all)
	 * @param limit the most to list (1 to {@value #MAX_LIST})
	 * @return the dead letters; payloads only with {@code show-payloads}
	 */
	public List<DeadLetterView> list(String consumer, long fromSequence, int limit) {
		ConsumerSettings settings = this.consumers.settings(consumer);
		if (limit < 1 || limit > MAX_LIST) {
			throw OperationRefusedException.badRequest("limit " + limit + " is not between 1 and " + MAX_LIST);
		}
		try {
			return this.deadLetters.messages(settings.deadLetterSubject(), fromSequence, limit)
				.stream()
				.map((message) -> DeadLetterView.of(message, this.showPayloads))
				.toList();
		}
		catch (IOException | JetStreamApiException ex) {
			throw unreadable(ex);
		}
	}

	/**
	 * Tells the parent of a discarded child task that the child failed for good.
	 * @param failures what tells it
	 */
	public void useChildFailures(ChildFailures failures) {
		this.childFailures = failures;
	}

	/**
	 * Replays a dead letter: reopens its task, republishes it, removes it.
	 * @param consumer the consumer
	 * @param sequence the dead letter's sequence in the dead-letter stream
	 * @param operator who replays it
	 * @param reason why
	 * @return what was done
	 */
	public OperationOutcome replay(String consumer, long sequence, String operator, String reason) {
		MessageInfo letter = letter(consumer, sequence);
		String key = keyOf(consumer, letter);
		int number = this.reopener.reopen(consumer, key, OperatorAction.Kind.REPLAY, sequence, operator, reason);
		// named by the dead letter, whose stream sequence never repeats: a replay of another dead letter of
		// the key (after the record expired and its replay numbers began again) is never taken for this one
		String messageId = key + "/replay-" + this.deadLetters.stream() + "-" + sequence;
		PublishAck ack = this.republisher.publish(letter, header(letter, "Original-Subject"), header(letter, "Stream"),
				key, messageId);
		remove(sequence);
		return new OperationOutcome(consumer, key, OperatorAction.Kind.REPLAY, number, sequence, messageId,
				ack.getSeqno(), ack.isDuplicate());
	}

	/**
	 * Discards a dead letter: records who and why on its task's record, tells the parent of a child
	 * task, removes it. A child's dead letter is refused, before anything is recorded, by an
	 * application that does not declare its parent's consumer.
	 * @param consumer the consumer
	 * @param sequence the dead letter's sequence in the dead-letter stream
	 * @param operator who discards it
	 * @param reason why
	 * @return what was done
	 */
	public OperationOutcome discard(String consumer, long sequence, String operator, String reason) {
		MessageInfo letter = letter(consumer, sequence);
		String key = header(letter, "Key");
		this.childFailures.checkDiscard(letter.getHeaders(), consumer, key);
		int number = (key != null)
				? this.reopener.reopen(consumer, key, OperatorAction.Kind.DISCARD, sequence, operator, reason) : 1;
		this.childFailures.discarded(letter.getHeaders(), consumer, key, reason);
		remove(sequence);
		return new OperationOutcome(consumer, key, OperatorAction.Kind.DISCARD, number, sequence, null, 0, false);
	}

	private MessageInfo letter(String consumer, long sequence) {
		ConsumerSettings settings = this.consumers.settings(consumer);
		MessageInfo letter;
		try {
			letter = this.deadLetters.message(sequence).orElse(null);
		}
		catch (IOException | JetStreamApiException ex) {
			throw unreadable(ex);
		}
		if (letter == null || !settings.deadLetterSubject().equals(letter.getSubject())) {
			throw OperationRefusedException.notFound("No dead letter of consumer '" + consumer + "' at sequence " + sequence
					+ " of stream '" + this.deadLetters.stream() + "' (replayed or discarded already?): list them again");
		}
		String owner = header(letter, "Consumer");
		String stream = header(letter, "Stream");
		if ((owner != null && !owner.equals(consumer)) || (stream != null && !stream.equals(settings.stream()))) {
			throw OperationRefusedException.notFound("Dead letter " + sequence + " of stream '" + this.deadLetters.stream()
					+ "' was parked by consumer '" + owner + "' of stream '" + stream + "', not by consumer '" + consumer
					+ "' (they share dead-letter subject '" + settings.deadLetterSubject() + "'): act on it as consumer '"
					+ owner + "'");
		}
		return letter;
	}

	private String keyOf(String consumer, MessageInfo letter) {
		String key = header(letter, "Key");
		if (key == null || key.isBlank()) {
			throw OperationRefusedException.conflict("Dead letter " + letter.getSeq() + " of consumer '" + consumer
					+ "' names no idempotency key (none could be resolved, or the header was trimmed to fit), so it "
					+ "cannot be replayed safely: publish its payload again with ExactlyOncePublisher and a message "
					+ "id, then discard it");
		}
		return key;
	}

	private void remove(long sequence) {
		try {
			this.deadLetters.remove(sequence);
		}
		catch (IOException | JetStreamApiException ex) {
			throw OperationRefusedException.unavailable("Dead letter " + sequence + " was acted on but not removed from '"
					+ this.deadLetters.stream() + "': " + ex.getMessage() + ". Ask again: the action is not repeated",
					ex);
		}
	}

	private static String header(MessageInfo letter, String name) {
		return HeaderEncoding.first(letter.getHeaders(), DeadLetterPublisher.HEADER_PREFIX + name);
	}

	private UncheckedIOException unreadable(Exception ex) {
		return new UncheckedIOException(new IOException("Dead-letter stream '" + this.deadLetters.stream()
				+ "' could not be read: " + ex.getMessage(), ex));
	}

}
