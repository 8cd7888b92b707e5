package dev.exactlyonce.listener;

import java.io.IOException;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Message;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.nats.ServerDirectives;

/**
 * Puts a message whose deliveries were used up by something other than its key's attempts (routine
 * shutdowns that released it, or waits for the lease of an attempt that died mid-work) back on its
 * stream as a new message with a fresh delivery budget: its body and headers (without
 * the {@code Nats-*} instructions) on its subject, with the message id
 * {@code requeue-<stream>-<sequence>} (so requeueing it twice stores one copy) and the original
 * message id in {@value KeyResolver#ORIGINAL_MESSAGE_ID_HEADER}, which keeps the copy under the
 * original's key. The caller then removes the original.
 */
final class Requeue {

	private static final Log logger = LogFactory.getLog(Requeue.class);

	private final Connection connection;

	Requeue(Connection connection) {
		this.connection = connection;
	}

	/**
	 * Publishes the copy of a delivery's message to the delivery's stream.
	 * @param delivery the message to requeue
	 * @param why what used up its deliveries, for the log
	 * @return the copy's stream sequence
	 * @throws IOException when the server did not store it
	 * @throws JetStreamApiException when the stream refused it
	 */
	long publishCopy(Delivery delivery, String why) throws IOException, JetStreamApiException {
		Message original = delivery.message();
		Headers headers = (original.getHeaders() != null) ? new Headers(original.getHeaders()) : new Headers();
		String originalId = HeaderEncoding.first(headers, KeyResolver.ORIGINAL_MESSAGE_ID_HEADER);
		if (originalId == null) {
			originalId = HeaderEncoding.first(headers, KeyResolver.MESSAGE_ID_HEADER);
		}
		ServerDirectives.remove(headers);
		String messageId = "requeue-" + delivery.stream() + "-" + delivery.streamSequence();
		HeaderEncoding.put(headers, KeyResolver.MESSAGE_ID_HEADER, messageId);
		if (originalId != null) {
			HeaderEncoding.put(headers, KeyResolver.ORIGINAL_MESSAGE_ID_HEADER, originalId);
		}
		Message copy = NatsMessage.builder()
			.subject(original.getSubject())
			.headers(headers)
			.data(original.getData())
			.build();
		PublishAck ack = this.connection.jetStream()
			.publish(copy, PublishOptions.builder().expectedStream(delivery.stream()).build());
		logger.warn("Message at " + delivery.describe() + " ran out of deliveries " + why + "; requeued as sequence "
				+ ack.getSeqno() + " (message id '" + messageId + "', same key) with a fresh delivery budget; the "
				+ "key's attempts still count against max-deliver");
		return ack.getSeqno();
	}

}
