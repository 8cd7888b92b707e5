package dev.exactlyonce.exhausted;

import java.io.IOException;
import java.time.Duration;

import io.nats.client.JetStreamApiException;

import dev.exactlyonce.nats.RawStreamMessage;

/**
 * What the listener pipeline decides, on its key's record, for a message of one consumer whose
 * deliveries ran out: implemented by the pipeline, which knows keys, records and dead letters.
 */
public interface ExhaustedKeys {

	/**
	 * Decides on the key of a message read back from its stream: settles it (duplicate, already
	 * dead-lettered, requeued, completion recovered, dead-lettered) or says when to decide again.
	 * @param stored the message as stored
	 * @param deliveries how many deliveries it had (0 when not known)
	 * @param reason why it is dead-lettered, if it is
	 * @param copies whether another copy of the key may still be delivered
	 * @return the decision
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when the server refused a request
	 */
	Decision decide(RawStreamMessage stored, long deliveries, String reason, Copies copies)
			throws IOException, JetStreamApiException;

	/** Whether the consumer may still deliver a copy of the key, and so make another attempt of it. */
	@FunctionalInterface
	interface Copies {

		/**
		 * Whether the consumer may still deliver the message at a stream sequence.
		 * @param sequence its stream sequence
		 * @return {@code true} when it may
		 * @throws IOException when the server did not answer
		 * @throws JetStreamApiException when the server refused a request
		 */
		boolean mayBeDeliveredAgain(long sequence) throws IOException, JetStreamApiException;

	}

	/** What was decided for the message. */
	sealed interface Decision {

		/**
		 * Not settled yet: decided again later.
		 * @param after when to decide again
		 * @param why why it waits, logged once per reason
		 */
		record Recheck(Duration after, String why) implements Decision {
		}

		/**
		 * Settled: the message is removed from a WorkQueue stream, and its outcome counted by the
		 * instance that removed it.
		 * @param count counts the outcome
		 */
		record Settled(Runnable count) implements Decision {
		}

		/** Its dead letter was not stored: it stays on its stream for now. */
		record DeadLetterNotStored() implements Decision {
		}

	}

}
