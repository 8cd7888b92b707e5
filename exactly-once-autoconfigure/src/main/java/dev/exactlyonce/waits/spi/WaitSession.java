package dev.exactlyonce.waits.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.springframework.core.ParameterizedTypeReference;

/**
 * The durable waits of one claimed delivery: each returns what a wait of its name returned before
 * in this run, returns at once when it can end now, or throws {@link WaitSuspension}.
 */
public interface WaitSession {

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#awaitSignal(String, ParameterizedTypeReference, Duration)}.
	 * @param <T> the payload type
	 * @param name the wait's name
	 * @param type the payload type
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return the payload, or empty after the timeout
	 */
	<T> Optional<T> awaitSignal(String name, ParameterizedTypeReference<T> type, Duration timeout);

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#sleepUntil(String, Instant)}.
	 * @param name the wait's name
	 * @param at when to wake (the first attempt's value is journaled and kept)
	 */
	void sleepUntil(String name, Instant at);

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#sleep(String, Duration)}.
	 * @param name the wait's name
	 * @param duration how long to sleep, from when the sleep was first journaled
	 */
	void sleep(String name, Duration duration);

	/**
	 * The suspension a wait of this session threw, so that the pipeline suspends the task even when
	 * the handler swallowed it.
	 * @return the first suspension thrown, or {@code null}
	 */
	WaitSuspension thrown();

}
