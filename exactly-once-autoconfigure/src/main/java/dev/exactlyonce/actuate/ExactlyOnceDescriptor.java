package dev.exactlyonce.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry.ListenerState;

/**
 * What {@code /actuator/exactlyonce} returns.
 *
 * @param store the idempotency store's name
 * @param listeners every listener and its state
 * @param consumers every declared consumer's settings and server-side state, by name
 * @param inFlightClaims the claims held now
 * @param lastReconciliation the latest reconciliation, or {@code null} before the first
 * @param limits the declared limits' use
 */
public record ExactlyOnceDescriptor(String store, List<ListenerState> listeners, Map<String, ConsumerDescriptor> consumers,
		InFlightClaims inFlightClaims, ReconciliationReport lastReconciliation, Limits limits) {

	/**
	 * The declared limits' use, read from their bucket at most once per 5 seconds.
	 *
	 * @param declared whether any limit is declared ({@code exactlyonce.limits})
	 * @param usage each limit's use, in declaration order
	 * @param error why the limits' bucket could not be read, or {@code null}
	 */
	public record Limits(boolean declared, List<LimitDescriptor> usage, String error) {
	}

	/**
	 * One consumer.
	 *
	 * @param stream its stream
	 * @param filterSubject its filter subject, or {@code null}
	 * @param pending messages not yet delivered
	 * @param ackPending messages delivered and not yet acknowledged
	 * @param redelivered messages delivered more than once and not yet acknowledged
	 * @param waiting pull requests waiting
	 * @param ackFloor the highest stream sequence below which every message is acknowledged
	 * @param ackFloorLastActive when the ack floor last moved
	 * @param deliveredStreamSequence the last stream sequence delivered
	 * @param effectiveAckWait the shortest ack wait of any delivery, ISO-8601
	 * @param workingAckInterval how often working acks are sent, ISO-8601
	 * @param lease the claim lease, ISO-8601
	 * @param maxDeliver the maximum number of deliveries
	 * @param deadLetterSubject where its dead letters go
	 * @param deadLetters how many dead letters that subject holds
	 * @param error why the server could not be read, or {@code null}
	 */
	public record ConsumerDescriptor(String stream, String filterSubject, Long pending, Long ackPending,
			Long redelivered, Long waiting, Long ackFloor, Instant ackFloorLastActive, Long deliveredStreamSequence,
			String effectiveAckWait, String workingAckInterval, String lease, long maxDeliver, String deadLetterSubject,
			Long deadLetters, String error) {
	}

	/**
	 * The claims held now.
	 *
	 * @param supported whether the store can list its records
	 * @param total how many claims are held (the list is capped)
	 * @param claims the oldest claims first
	 */
	public record InFlightClaims(boolean supported, long total, List<ClaimDescriptor> claims) {
	}

	/**
	 * One held claim.
	 *
	 * @param key the idempotency key with its namespace
	 * @param owner the instance (and thread) holding it
	 * @param attempt the attempt number
	 * @param startedAt when this attempt claimed it
	 * @param ageSeconds how long ago that was
	 * @param leaseUntil when its lease ends unless renewed
	 * @param leaseExpired whether the lease already ran out (the holder likely died: a stuck claim)
	 */
	public record ClaimDescriptor(String key, String owner, int attempt, Instant startedAt, long ageSeconds,
			Instant leaseUntil, boolean leaseExpired) {
	}

}
