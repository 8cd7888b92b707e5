package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * The resolved, validated runtime settings of one durable consumer, including what the server
 * reported after provisioning.
 *
 * @param consumer the durable name
 * @param stream the stream
 * @param effectiveAckWait the shortest time the server waits for an ack of any delivery
 * @param workingAckInterval how often working acks and lease renewals are sent
 * @param lease the claim lease
 * @param backoff the redelivery delays per attempt (may be empty)
 * @param retryDelay the redelivery delay after a failure when {@code backoff} is empty
 * @param maxDeliver the maximum number of deliveries, or -1 for unlimited
 * @param concurrency the number of parallel workers in this instance
 * @param onAbandoned what to do with an abandoned claim
 * @param pullExpiry how long one pull request waits
 * @param deadLetterSubject where dead letters go
 * @param maxPayloadBytes the largest payload handed to the listener; larger ones are dead-lettered
 * @param nonRetryableExceptions exception types that dead-letter at once for this consumer
 * @param declaredNamespace the store namespace declared for its keys
 * ({@code exactlyonce.consumers.<name>.namespace}), or {@code null} when none is
 */
public record ConsumerSettings(String consumer, String stream, Duration effectiveAckWait, Duration workingAckInterval,
		Duration lease, List<Duration> backoff, Duration retryDelay, long maxDeliver, int concurrency,
		AbandonedPolicy onAbandoned, Duration pullExpiry, String deadLetterSubject, long maxPayloadBytes,
		List<Class<? extends Throwable>> nonRetryableExceptions, String declaredNamespace) {

	/**
	 * The store namespace of the consumer's keys where no listener gives its own: the declared
	 * one, else the consumer's name.
	 * @return the namespace
	 */
	public String namespace() {
		return (this.declaredNamespace != null) ? this.declaredNamespace : this.consumer;
	}

	/**
	 * The store namespace of a listener's keys: its annotation's when set, else {@link #namespace()}.
	 * @param listener the listener on this consumer, with its annotation's namespace or {@code null}
	 * @return the namespace
	 * @throws ExactlyOnceConfigurationException when the annotation and the declared namespace differ:
	 * applications without the listener would look for its tasks elsewhere
	 */
	public String namespaceOf(ListenerEndpoint listener) {
		String annotated = listener.namespace();
		if (annotated == null) {
			return namespace();
		}
		if (this.declaredNamespace != null && !this.declaredNamespace.equals(annotated)) {
			String property = "exactlyonce.consumers." + this.consumer + ".namespace";
			throw new ExactlyOnceConfigurationException("Listener " + listener.describe() + " sets namespace '"
					+ annotated + "' but " + property + " is '" + this.declaredNamespace + "': its tasks would be "
					+ "stored under one and looked for under the other by applications without the listener",
					"Remove the namespace attribute of @ExactlyOnceListener and keep " + property
							+ " (every application that declares the consumer then agrees), or make them equal.");
		}
		return annotated;
	}

	/**
	 * The delay before redelivering a message whose delivery number {@code deliveryCount} failed.
	 * @param deliveryCount the failed delivery's number (1 for the first)
	 * @return the delay
	 */
	public Duration retryDelayAfter(long deliveryCount) {
		if (this.backoff.isEmpty()) {
			return this.retryDelay;
		}
		int index = (int) Math.min(Math.max(deliveryCount, 1), this.backoff.size()) - 1;
		return this.backoff.get(index);
	}

	/**
	 * Whether a delivery is the last the server will make.
	 * @param deliveryCount the delivery's number
	 * @return {@code true} when no redelivery would follow a failure
	 */
	public boolean isLastDelivery(long deliveryCount) {
		return this.maxDeliver > 0 && deliveryCount >= this.maxDeliver;
	}

	/**
	 * Whether a key's attempt number, counted over every copy of the key, used up max-deliver: a
	 * business key published twice must not run twice as often.
	 * @param keyAttempt the attempt number the claim recorded (1 for the first)
	 * @return {@code true} when no further attempt of the key may run
	 */
	public boolean isLastKeyAttempt(int keyAttempt) {
		return this.maxDeliver > 0 && keyAttempt >= this.maxDeliver;
	}

	/**
	 * How long a copy waits before looking again at a key another worker holds: the working-ack
	 * interval times the delivery number (so it notices a quick holder finishing within seconds),
	 * never past the holder's lease.
	 * @param deliveryCount the waiting delivery's number
	 * @param leaseRemaining how long the holder's lease still runs
	 * @return the delay
	 */
	public Duration waitForHolder(long deliveryCount, Duration leaseRemaining) {
		Duration paced = this.workingAckInterval.multipliedBy(Math.max(1, deliveryCount));
		return (paced.compareTo(leaseRemaining) < 0) ? paced : leaseRemaining;
	}

}
