package dev.exactlyonce.waits;

import java.time.Duration;

/**
 * Where durable waits are kept on NATS and how long they may last.
 *
 * @param bucket the KV bucket that keeps what ended each wait (a signal, or its timeout)
 * @param stream the stream that keeps one ticket per waiting task: its message, to publish again
 * when it resumes, and its deadline
 * @param subjectPrefix the prefix of the tickets' subjects ({@code <prefix>.<task digest>})
 * @param timerConsumer the durable consumer of the tickets that every instance reads
 * @param maxDuration the longest a wait may last
 * @param recheckInterval the longest a ticket sleeps before its task is looked at again (a signal
 * stored while its sender could not resume the task is found then)
 * @param maxWaiting how many tasks may wait at once (the ticket consumer's {@code max-ack-pending})
 * @param requestTimeout how long one NATS request may take
 * @param create whether the bucket, stream and consumer are created or updated at start-up
 */
public record WaitsSettings(String bucket, String stream, String subjectPrefix, String timerConsumer,
		Duration maxDuration, Duration recheckInterval, int maxWaiting, Duration requestTimeout, boolean create) {
}
