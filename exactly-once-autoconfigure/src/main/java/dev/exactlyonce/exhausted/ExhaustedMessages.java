package dev.exactlyonce.exhausted;

import java.io.IOException;

import io.nats.client.JetStreamApiException;

import dev.exactlyonce.nats.RawStreamMessage;

/**
 * What settles the messages of one consumer that the sweeps find: implemented by
 * {@link ExhaustedDeliveries}, which has the listener pipeline decide on each message's
 * idempotency key ({@link ExhaustedKeys}).
 */
public interface ExhaustedMessages {

	/**
	 * Settles a message found on the stream after its deliveries ran out (how many is not known),
	 * unless it is being decided on already; never throws (a failed decision is retried).
	 * @param sequence its stream sequence
	 */
	void settleFound(long sequence);

	/**
	 * Dead-letters a message whose headers the Java client cannot decode (unless its key is already
	 * final or held by a running attempt), and removes it from a WorkQueue stream.
	 * @param message the message as stored
	 * @return false when it was not settled now (it stays on its stream; its MAX_DELIVERIES
	 * advisory settles it later)
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when the server refused a request
	 */
	boolean parkUndecodable(RawStreamMessage message) throws IOException, JetStreamApiException;

}
