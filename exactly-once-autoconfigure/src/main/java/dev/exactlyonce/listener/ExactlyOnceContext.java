package dev.exactlyonce.listener;

import java.time.Duration;
import java.util.Optional;

import io.nats.client.impl.Headers;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.children.ChildTaskCalls;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.steps.spi.StepSession;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.waits.DurableWaitCalls;

/**
 * What a listener method may know about the delivery it is handling, and what it may do in it: durable
 * steps and follow-up publishes here, durable waits ({@link DurableWaitCalls}) and child tasks
 * ({@link ChildTaskCalls}). Declare it as a parameter of an
 * {@link dev.exactlyonce.annotation.ExactlyOnceListener} method.
 */
public interface ExactlyOnceContext extends DurableWaitCalls, ChildTaskCalls {

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

	/**
	 * Runs a durable step: journals it as started in the idempotency store, runs the action and
	 * journals its result, fenced by this attempt's claim. On a later attempt of the same key (after
	 * a crash or a failure) a step whose result is journaled returns that result without running
	 * again; a step an earlier attempt started but never finished follows the consumer's
	 * {@code on-abandoned} policy (run again, or dead-letter with a {@link StepInterruptedException}).
	 * Outside a delivery the action just runs.
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @return the action's result, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action threw a checked exception (unchecked ones pass
	 * through); the step runs again on the next attempt
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt (the
	 * name ran before in this run, the result is larger than {@code exactlyonce.steps.max-result-size}
	 * or cannot be read back as {@code type}): the message is dead-lettered, never retried
	 */
	default <T> T step(String name, Class<T> type, StepAction<T> action) {
		return step(name, type, action, (StepProbe<T>) null);
	}

	/**
	 * Runs a durable step with a probe: like {@link #step(String, Class, StepAction)}, but a step an
	 * earlier attempt started and never finished first runs the probe; a result it finds is
	 * journaled and returned without running the action (the side effect had happened), otherwise
	 * the action runs.
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @param probe looks for the side effect of an unfinished earlier run, or {@code null} for none;
	 * it returns {@link Optional#empty()} when there is none, never {@code null}
	 * @return the action's result, the probe's, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action or probe threw a checked exception
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt
	 */
	default <T> T step(String name, Class<T> type, StepAction<T> action, StepProbe<T> probe) {
		return step(name, ParameterizedTypeReference.forType(type), action, probe);
	}

	/**
	 * Runs a durable step whose result is of a generic type, e.g.
	 * {@code step("drafts", new ParameterizedTypeReference<List<Draft>>() {}, ...)}: see
	 * {@link #step(String, Class, StepAction)}.
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @return the action's result, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action threw a checked exception
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt
	 */
	default <T> T step(String name, ParameterizedTypeReference<T> type, StepAction<T> action) {
		return step(name, type, action, (StepProbe<T>) null);
	}

	/**
	 * Runs a durable step with a probe whose result is of a generic type: see
	 * {@link #step(String, Class, StepAction, StepProbe)}.
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @param probe looks for the side effect of an unfinished earlier run, or {@code null} for none
	 * @return the action's result, the probe's, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action or probe threw a checked exception
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt
	 */
	default <T> T step(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe) {
		return StepSession.callAction(name, action);
	}

	/**
	 * Runs a durable step with options, e.g. {@code step("answer", Answer.class, action, StepOptions.limit("openai"))}:
	 * like {@link #step(String, Class, StepAction)}, the action running only with a slot and a token of
	 * the limit (a step an earlier attempt finished replays without one).
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @param options how the step runs
	 * @return the action's result, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action threw a checked exception
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt
	 */
	default <T> T step(String name, Class<T> type, StepAction<T> action, StepOptions options) {
		return step(name, ParameterizedTypeReference.forType(type), action, null, options);
	}

	/**
	 * Runs a durable step with a probe and options: see {@link #step(String, Class, StepAction, StepProbe)}
	 * and {@link #step(String, Class, StepAction, StepOptions)}.
	 * @param <T> the result type
	 * @param name the step's name, unique within one run of the handler
	 * @param type the result type, to read a journaled result back
	 * @param action the step's work
	 * @param probe looks for the side effect of an unfinished earlier run, or {@code null} for none
	 * @param options how the step runs, or {@code null}
	 * @return the action's result, the probe's, or the result an earlier attempt journaled
	 * @throws StepFailedException when the action or probe threw a checked exception
	 * @throws StepRejectedException when the step cannot be journaled or replayed on any attempt
	 */
	default <T> T step(String name, ParameterizedTypeReference<T> type, StepAction<T> action, StepProbe<T> probe,
			StepOptions options) {
		return step(name, type, action, probe);
	}

	/**
	 * Publishes a follow-up message exactly once, as the durable step {@code publish:<subject>}:
	 * see {@link #publish(String, String, Object)}.
	 * @param subject the subject
	 * @param payload {@code byte[]} and {@code String} are sent as they are, anything else as JSON
	 * @return where the stream stored it
	 */
	default PublishResult publish(String subject, Object payload) {
		return publish("publish:" + subject, subject, payload);
	}

	/**
	 * Publishes a follow-up message exactly once, as a durable step. Its message id is
	 * {@code <namespace>:<key>/<step>/<origin>} ({@code %} and {@code /} in the key and step
	 * percent-encoded), where the origin is the fencing token of the claim that first started the step
	 * in this run of the task: a run of the step again after a crash or a replay sends the same id
	 * (dropped by the server within the stream's duplicate window; once the step is journaled it is
	 * not sent again at all), while a resubmitted task, whose journal starts empty, publishes under
	 * new ids, so its follow-ups are delivered and run again.
	 * @param step the step's name, unique within one run of the handler
	 * @param subject the subject
	 * @param payload {@code byte[]} and {@code String} are sent as they are, anything else as JSON
	 * @return where the stream stored it
	 * @throws UnsupportedOperationException outside a delivery
	 */
	default PublishResult publish(String step, String subject, Object payload) {
		throw new UnsupportedOperationException("publish of step '" + step + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method, or publish with ExactlyOncePublisher");
	}

}
