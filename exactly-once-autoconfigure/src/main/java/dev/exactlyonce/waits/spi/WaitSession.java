package dev.exactlyonce.waits.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
	 * Waits, under one journaled wait (of kind {@code child}), for several decisions of this run that
	 * others store: child tasks' results: returns once each is decided or noticed, or the timeout passed (then each
	 * undecided one is decided as timed out). While some are neither decided nor noticed the task
	 * suspends on the last of them in the given order (a decision or notice for it resumes the task;
	 * the others are read when it resumes), so children that finish in about the order they were
	 * started resume it about once. Journaled DONE, so the same on every later attempt of the run, only when no
	 * decision is just noticed.
	 * @param name the wait's name in the journal
	 * @param decisionNames the decisions' names
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return what was found for each decision, in the given order
	 */
	Map<String, AwaitedDecision> awaitDecisions(String name, List<String> decisionNames, Duration timeout);

	/**
	 * The suspension a wait of this session threw, so that the pipeline suspends the task even when
	 * the handler swallowed it.
	 * @return the first suspension thrown, or {@code null}
	 */
	WaitSuspension thrown();

}
