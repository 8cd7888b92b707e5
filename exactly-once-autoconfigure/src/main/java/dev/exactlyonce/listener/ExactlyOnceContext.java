package dev.exactlyonce.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.nats.client.impl.Headers;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.store.PreviousAttempt;
import dev.exactlyonce.waits.spi.WaitSuspension;

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

	/**
	 * Starts a child task: a durable step named {@code name} that publishes {@code payload} to
	 * {@code subject} once, naming this task as the child's parent, and journals the
	 * {@link ChildTask}. Run again after a crash it is not published twice; a replayed task keeps its
	 * children, a resubmitted one starts new ones. The child's key (its {@code Nats-Msg-Id}) is
	 * {@code <key>/<name>} in the task's first run, {@code <key>/run-<n>/<name>} in run n; the child's
	 * listener must key by message id. Its result is awaited with
	 * {@link #awaitChild(ChildTask, Class, Duration)} or {@link #awaitAll(String, Collection, Duration)}.
	 * Needs durable waits. See docs/children.md.
	 * @param name the step's name, unique within one run of the handler (shared with steps and waits)
	 * @param subject the child's subject
	 * @param payload the child's payload ({@code byte[]} and {@code String} as they are, else JSON)
	 * @return the child
	 * @throws UnsupportedOperationException outside a delivery, or without durable waits
	 */
	default ChildTask startChild(String name, String subject, Object payload) {
		return startChild(name, subject, payload, null, Map.of());
	}

	/**
	 * Starts a child task with a key of its own and extra headers: see
	 * {@link #startChild(String, String, Object)}.
	 * @param name the step's name, unique within one run of the handler
	 * @param subject the child's subject
	 * @param payload the child's payload
	 * @param key the child's key (and message id), or {@code null} for the default one; give a new one
	 * for each run if a resubmitted task must start new children
	 * @param headers extra headers of the child's message
	 * @return the child
	 * @throws UnsupportedOperationException outside a delivery, or without durable waits
	 */
	default ChildTask startChild(String name, String subject, Object payload, String key, Map<String, String> headers) {
		throw new UnsupportedOperationException("startChild '" + name + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

	/**
	 * Waits durably for a child's result: the task is suspended (as by
	 * {@link #awaitSignal(String, Class, Duration)}, holding no thread, ack slot or lease) until the
	 * child's listener returned, and this call then returns what it returned (read as
	 * {@code resultType}). A result that arrived before the wait is kept for it. The wait's name is
	 * {@code <child name>.result}: a child is awaited once per run.
	 * @param <T> the result type
	 * @param child the child, as {@link #startChild(String, String, Object)} returned it
	 * @param resultType the type of what the child's listener returns
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return the child's result
	 * @throws dev.exactlyonce.children.ChildFailedException when the child was dead-lettered (and has
	 * not completed since) or discarded
	 * @throws dev.exactlyonce.children.ChildTimeoutException when the timeout passed first (the child
	 * keeps running; its result is ignored by this run)
	 * @throws WaitSuspension to suspend the task: never catch it
	 */
	default <T> T awaitChild(ChildTask child, Class<T> resultType, Duration timeout) {
		return awaitChild(child, ParameterizedTypeReference.forType(resultType), timeout);
	}

	/**
	 * Waits durably for a child's result of a generic type: see
	 * {@link #awaitChild(ChildTask, Class, Duration)}.
	 * @param <T> the result type
	 * @param child the child
	 * @param resultType the type of what the child's listener returns
	 * @param timeout how long to wait at most
	 * @return the child's result
	 * @throws WaitSuspension to suspend the task: never catch it
	 */
	default <T> T awaitChild(ChildTask child, ParameterizedTypeReference<T> resultType, Duration timeout) {
		throw new UnsupportedOperationException("awaitChild '" + child.name() + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

	/**
	 * Waits durably, as one wait named {@code name}, until every child finished (completed, failed) or
	 * the timeout passed; the task is resumed when the child it waits on finishes, and then reads all
	 * the others, so it runs again about once rather than once per child. Results are read as plain
	 * JSON values (maps, lists, strings, numbers).
	 * @param name the wait's name, unique within one run of the handler
	 * @param children the children
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return each child's result or failure, in the children's order
	 * @throws dev.exactlyonce.children.ChildTimeoutException when the timeout passed with children
	 * unfinished
	 * @throws WaitSuspension to suspend the task: never catch it
	 */
	default List<ChildResult<?>> awaitAll(String name, Collection<ChildTask> children, Duration timeout) {
		return List.copyOf(awaitAll(name, children, ParameterizedTypeReference.forType(Object.class), timeout));
	}

	/**
	 * Waits durably until every child finished, reading their results as one type: see
	 * {@link #awaitAll(String, Collection, Duration)}.
	 * @param <T> the results' type
	 * @param name the wait's name, unique within one run of the handler
	 * @param children the children
	 * @param resultType the type of what the children's listener returns
	 * @param timeout how long to wait at most
	 * @return each child's result or failure, in the children's order
	 * @throws WaitSuspension to suspend the task: never catch it
	 */
	default <T> List<ChildResult<T>> awaitAll(String name, Collection<ChildTask> children,
			ParameterizedTypeReference<T> resultType, Duration timeout) {
		throw new UnsupportedOperationException("awaitAll '" + name + "' needs a delivery: call it from an "
				+ "@ExactlyOnceListener method");
	}

	/**
	 * Waits durably until every child finished, reading their results as one class: see
	 * {@link #awaitAll(String, Collection, Duration)}.
	 * @param <T> the results' type
	 * @param name the wait's name, unique within one run of the handler
	 * @param children the children
	 * @param resultType the class of what the children's listener returns
	 * @param timeout how long to wait at most
	 * @return each child's result or failure, in the children's order
	 * @throws WaitSuspension to suspend the task: never catch it
	 */
	default <T> List<ChildResult<T>> awaitAll(String name, Collection<ChildTask> children, Class<T> resultType,
			Duration timeout) {
		return awaitAll(name, children, ParameterizedTypeReference.forType(resultType), timeout);
	}

}
