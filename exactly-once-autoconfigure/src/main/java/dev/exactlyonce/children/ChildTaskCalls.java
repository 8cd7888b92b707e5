package dev.exactlyonce.children;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.waits.spi.WaitSuspension;

/**
 * The child tasks a listener method starts and awaits on its {@code ExactlyOnceContext}, which
 * extends this: a parent hands work to other listeners and waits for their results, holding no
 * worker thread, ack slot or lease. Outside a delivery each call throws
 * {@link UnsupportedOperationException}. See docs/children.md.
 */
public interface ChildTaskCalls {

	/**
	 * Starts a child task: a durable step named {@code name} that publishes {@code payload} to
	 * {@code subject} once, naming this task as the child's parent, and journals the
	 * {@link ChildTask}. Run again after a crash it is not published twice; a replayed task keeps its
	 * children, a resubmitted one starts new ones. The child's key (its {@code Nats-Msg-Id}) is
	 * {@code <consumer>/<key>/<name>} in the task's first run, {@code <consumer>/<key>/run-<n>/<name>} in
	 * run n (the parent's consumer and key); the child's
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
	 * @param key the child's key (and message id) in the task's first run, {@code <key>/run-<n>} in run n
	 * (a resubmit starts new children), or {@code null} for the default one
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
	 * {@link dev.exactlyonce.waits.DurableWaitCalls#awaitSignal(String, Class, Duration)}, holding no thread, ack slot or lease) until the
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
	 * the timeout passed; the task waits on the last child (in the given order) that has not finished,
	 * is resumed when that one finishes, and then reads the others, so children that finish in about
	 * the order they were started resume it about once rather than once per child. Results are read as plain
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
