package dev.exactlyonce.listener;

import java.util.Optional;

import io.nats.client.impl.Headers;

import dev.exactlyonce.store.PreviousAttempt;

/**
 * What a listener method may know about the delivery it is handling. Declare it as a parameter of
 * an {@link dev.exactlyonce.annotation.ExactlyOnceListener} method.
 */
public interface ExactlyOnceContext {

	/**
	 * The idempotency key, without the listener's namespace.
	 * @return the key
	 */
	String key();

	/**
	 * The stream the message was read from.
	 * @return the stream name
	 */
	String stream();

	/**
	 * The durable consumer that delivered it.
	 * @return the consumer name
	 */
	String consumer();

	/**
	 * The message's sequence in the stream.
	 * @return the stream sequence
	 */
	long streamSequence();

	/**
	 * How many times the server has delivered this message, this delivery included.
	 * @return the delivery count, 1 for the first delivery
	 */
	long deliveryCount();

	/**
	 * The subject the message was published on.
	 * @return the subject
	 */
	String subject();

	/**
	 * The message headers.
	 * @return the headers, never {@code null}
	 */
	Headers headers();

	/**
	 * The fencing token of the claim this attempt holds; changes with every new attempt.
	 * @return the token, or {@code null} before the claim is acquired
	 */
	String fencingToken();

	/**
	 * The attempt before this one when it failed or died mid-work: a handler with side effects that
	 * cannot be repeated should check for them before redoing its work.
	 * @return the previous attempt, or empty on a first attempt
	 */
	Optional<PreviousAttempt> previousAttempt();

}
