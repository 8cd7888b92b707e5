package dev.exactlyonce.publish;

import io.micrometer.observation.transport.SenderContext;
import io.nats.client.impl.Headers;

/**
 * What the {@code exactlyonce.publish} observation knows about a publish: a sender context whose
 * carrier is the message's headers (a tracer injects its context there), with the subject and the
 * message id.
 */
public class PublishObservationContext extends SenderContext<Headers> {

	private final String subject;

	private final String messageId;

	/**
	 * Creates the context of one publish.
	 * @param subject the subject published on
	 * @param messageId the message's {@code Nats-Msg-Id}
	 * @param headers the message's headers
	 */
	public PublishObservationContext(String subject, String messageId, Headers headers) {
		super((carrier, key, value) -> carrier.put(key, value));
		setCarrier(headers);
		setRemoteServiceName("nats");
		this.subject = subject;
		this.messageId = messageId;
	}

	/**
	 * The subject published on.
	 * @return the subject
	 */
	public String getSubject() {
		return this.subject;
	}

	/**
	 * The message id, the same for every attempt of the publish.
	 * @return the {@code Nats-Msg-Id}
	 */
	public String getMessageId() {
		return this.messageId;
	}

}
