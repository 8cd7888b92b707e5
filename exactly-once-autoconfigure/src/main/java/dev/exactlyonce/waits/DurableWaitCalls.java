package dev.exactlyonce.waits;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * The durable waits a listener method calls on its {@code ExactlyOnceContext}, which extends this:
 * sleeps and signals that suspend the task, holding no worker thread, ack slot or lease. Outside a
 * delivery each call throws {@link UnsupportedOperationException}. See docs/waits.md.
 */
public interface DurableWaitCalls {

	/**
	 * Sleeps durably: the task is suspended, holding no worker thread, ack slot or lease, and runs
	 * again from the top once {@code duration} has passed since this sleep was first journaled (on the
	 * server's clock); finished steps replay, and this call then returns at once. A sleep whose time
	 * passed while no instance ran wakes as soon as one runs. See docs/waits.md.
	 * @param name the sleep's name, unique within one run of the handler (shared with steps)
	 * @param duration how long, at most {@code exactlyonce.waits.max-duration}
	 * @throws WaitSuspension to suspend the task: never catch it
	 * @throws UnsupportedOperationException outside a delivery
	 */
	default void sleep(String name, Duration duration) {
		throw new UnsupportedOperationException("sleep '" + name + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

	/**
	 * Sleeps durably until an instant: like {@link #sleep(String, Duration)}; the instant the first
	 * attempt passed is journaled and kept by every later attempt.
	 * @param name the sleep's name, unique within one run of the handler
	 * @param at when to wake, at most {@code exactlyonce.waits.max-duration} from now
	 * @throws WaitSuspension to suspend the task: never catch it
	 * @throws UnsupportedOperationException outside a delivery
	 */
	default void sleepUntil(String name, Instant at) {
		throw new UnsupportedOperationException("sleepUntil '" + name + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

	/**
	 * Waits durably for a signal ({@code ExactlyOnceSignals.signal}, or the operations endpoint): the
	 * task is suspended, holding no worker thread, ack slot or lease, and runs again from the top when
	 * the signal arrives or the timeout passes; finished steps replay, and this call then returns the
	 * signal's payload, or empty after the timeout. A signal sent before the task reached the wait is
	 * kept for it; the signal and the timeout are decided once, so every later attempt of this run gets
	 * the same answer. See docs/waits.md.
	 * @param <T> the payload type
	 * @param name the wait's name, unique within one run of the handler (shared with steps); signals
	 * are sent to it by this name
	 * @param type the payload type
	 * @param timeout how long to wait at most, from when the wait was first journaled, at most
	 * {@code exactlyonce.waits.max-duration}
	 * @return the signal's payload, or empty when the timeout passed first
	 * @throws WaitSuspension to suspend the task: never catch it
	 * @throws UnsupportedOperationException outside a delivery
	 */
	default <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
		return awaitSignal(name, ParameterizedTypeReference.forType(type), timeout);
	}

	/**
	 * Waits durably for a signal whose payload is of a generic type: see
	 * {@link #awaitSignal(String, Class, Duration)}.
	 * @param <T> the payload type
	 * @param name the wait's name, unique within one run of the handler
	 * @param type the payload type
	 * @param timeout how long to wait at most
	 * @return the signal's payload, or empty when the timeout passed first
	 * @throws WaitSuspension to suspend the task: never catch it
	 * @throws UnsupportedOperationException outside a delivery
	 */
	default <T> Optional<T> awaitSignal(String name, ParameterizedTypeReference<T> type, Duration timeout) {
		throw new UnsupportedOperationException("awaitSignal '" + name + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

}
