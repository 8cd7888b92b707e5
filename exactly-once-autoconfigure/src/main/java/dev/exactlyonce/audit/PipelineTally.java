package dev.exactlyonce.audit;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

import dev.exactlyonce.listener.DeliveryOutcome;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.publish.PublishObserver;
import dev.exactlyonce.publish.PublishResult;

/**
 * Remembers, with their time, the duplicate events the server and the store keep no count of:
 * publishes caught by stream deduplication, redeliveries caught by the idempotency check, and
 * handler runs after a lost or abandoned claim. Only this instance's events, only since start-up,
 * at most {@value #CAPACITY} of them (the oldest are dropped).
 */
public class PipelineTally implements PipelineObserver, PublishObserver {

	static final int CAPACITY = 100_000;

	private final Clock clock;

	private final Deque<Event> events = new ArrayDeque<>();

	/**
	 * Creates the tally.
	 * @param clock the clock of event times
	 */
	public PipelineTally(Clock clock) {
		this.clock = clock;
	}

	@Override
	public void onPublished(String subject, PublishResult result) {
		if (result.duplicate()) {
			add(new Event(this.clock.instant(), Kind.STREAM_DEDUP, result.stream(), subject, null, null,
					result.streamSequence()));
		}
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (point == PipelinePoint.INVOKING && context.previousAttempt().map((p) -> p.abandoned()).orElse(false)) {
			add(event(Kind.ABANDONED_RERUN, context));
		}
	}

	@Override
	public void onOutcome(DeliveryOutcome outcome, ExactlyOnceContext context) {
		if (outcome == DeliveryOutcome.DUPLICATE) {
			add(event(Kind.IDEMPOTENCY_DUPLICATE, context));
		}
		else if (outcome == DeliveryOutcome.CLAIM_LOST) {
			add(event(Kind.CLAIM_LOST, context));
		}
	}

	/**
	 * The events of a window matching a condition.
	 * @param from the start (inclusive)
	 * @param to the end (exclusive)
	 * @param condition which events
	 * @return the events, oldest first
	 */
	public synchronized List<Event> events(Instant from, Instant to, Predicate<Event> condition) {
		return this.events.stream()
			.filter((event) -> !event.at().isBefore(from) && event.at().isBefore(to))
			.filter(condition)
			.toList();
	}

	private Event event(Kind kind, ExactlyOnceContext context) {
		return new Event(this.clock.instant(), kind, context.stream(), context.subject(), context.consumer(),
				context.key(), context.streamSequence());
	}

	private synchronized void add(Event event) {
		if (this.events.size() >= CAPACITY) {
			this.events.removeFirst();
		}
		this.events.addLast(event);
	}

	/** Kinds of remembered events. */
	public enum Kind {

		/** A publish the stream recognised as a duplicate message id. */
		STREAM_DEDUP,

		/** A redelivery of a completed key, acked without running the handler. */
		IDEMPOTENCY_DUPLICATE,

		/** A handler finished after its claim was taken over (completion refused). */
		CLAIM_LOST,

		/** A handler ran again after the previous attempt died mid-work. */
		ABANDONED_RERUN

	}

	/**
	 * One remembered event.
	 *
	 * @param at when it happened
	 * @param kind what happened
	 * @param stream the stream
	 * @param subject the message's subject
	 * @param consumer the consumer, or {@code null} for publishes
	 * @param key the idempotency key without namespace, or {@code null} for publishes
	 * @param streamSequence the stream sequence
	 */
	public record Event(Instant at, Kind kind, String stream, String subject, String consumer, String key,
			long streamSequence) {
	}

}
