package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.List;

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
 */
public record ConsumerSettings(String consumer, String stream, Duration effectiveAckWait, Duration workingAckInterval,
		Duration lease, List<Duration> backoff, Duration retryDelay, long maxDeliver, int concurrency,
		AbandonedPolicy onAbandoned, Duration pullExpiry, String deadLetterSubject, long maxPayloadBytes,
		List<Class<? extends Throwable>> nonRetryableExceptions) {

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
