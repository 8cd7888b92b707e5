package dev.exactlyonce.children.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;

/**
 * The child tasks of one claimed delivery (the parent): what
 * {@code ExactlyOnceContext.startChild}, {@code awaitChild} and {@code awaitAll} do.
 */
public interface ChildSession {

	/**
	 * Publishes a child task, naming this task as its parent: the action of the {@code startChild}
	 * step (the step journals what it returns).
	 * @param name the step's name
	 * @param subject the child's subject
	 * @param payload the child's payload
	 * @param key the child's key, or {@code null} for the default one
	 * @param headers extra headers of the child's message
	 * @return the child
	 */
	ChildTask publish(String name, String subject, Object payload, String key, Map<String, String> headers);

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#awaitChild(ChildTask, ParameterizedTypeReference, Duration)}.
	 * @param <T> the result type
	 * @param child the child
	 * @param type the result type
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return the child's result
	 */
	<T> T awaitChild(ChildTask child, ParameterizedTypeReference<T> type, Duration timeout);

	/**
	 * See {@link dev.exactlyonce.listener.ExactlyOnceContext#awaitAll(String, Collection, ParameterizedTypeReference, Duration)}.
	 * @param <T> the results' type
	 * @param name the wait's name
	 * @param children the children
	 * @param type the results' type
	 * @param timeout how long to wait at most, from when the wait was first journaled
	 * @return each child's result or failure, in the children's order
	 */
	<T> List<ChildResult<T>> awaitAll(String name, Collection<ChildTask> children, ParameterizedTypeReference<T> type,
			Duration timeout);

}
