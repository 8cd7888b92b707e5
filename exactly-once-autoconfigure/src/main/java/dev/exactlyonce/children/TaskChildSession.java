package dev.exactlyonce.children;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.children.spi.ChildSession;
import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.waits.spi.AwaitedDecision;
import dev.exactlyonce.waits.spi.WaitSession;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * The children of one claimed delivery (the parent). A child is published with this task named in
 * its headers, under its key as message id; its result is awaited as the decision
 * {@code <child>.result} of this run's waits, one durable wait for one child or for many.
 */
final class TaskChildSession implements ChildSession {

	private final WaitingTask task;

	private final WaitSession waits;

	private final ExactlyOncePublisher publisher;

	private final JsonMapper mapper;

	TaskChildSession(WaitingTask task, WaitSession waits, ExactlyOncePublisher publisher, JsonMapper mapper) {
		this.task = task;
		this.waits = waits;
		this.publisher = publisher;
		this.mapper = mapper;
	}

	@Override
	public ChildTask publish(String name, String subject, Object payload, String key, Map<String, String> headers) {
		String childKey = (key != null) ? inThisRun(key) : defaultKey(name);
		Map<String, String> childHeaders = new LinkedHashMap<>((headers != null) ? headers : Map.of());
		new ParentHeaders(this.task.consumer(), this.task.key(), this.task.run(), name).writeTo(childHeaders);
		PublishResult published = this.publisher.publish(subject, payload, childKey, childHeaders);
		return new ChildTask(name, subject, childKey, published.stream(), published.streamSequence());
	}

	/**
	 * {@code <parent consumer>/<parentKey>/<name>} in run 1, {@code <parent consumer>/<parentKey>/run-<n>/<name>}
	 * in a later run: parents of two consumers may share a key, their children never share a message id.
	 */
	private String defaultKey(String name) {
		String parent = this.task.consumer() + "/" + this.task.key();
		return (this.task.run() == 1) ? parent + "/" + name : parent + "/run-" + this.task.run() + "/" + name;
	}

	/**
	 * A key of the caller's in run 1, {@code <key>/run-<n>} in a later run: a resubmitted task's child
	 * never shares its message id (and so its record) with the child of an earlier run, whose
	 * completion would make it a duplicate that never reports to the parent.
	 */
	private String inThisRun(String key) {
		return (this.task.run() == 1) ? key : key + "/run-" + this.task.run();
	}

	@Override
	public <T> T awaitChild(ChildTask child, ParameterizedTypeReference<T> type, Duration timeout) {
		String waitName = child.resultWaitName();
		AwaitedDecision awaited = this.waits.awaitDecisions(waitName, List.of(waitName), timeout).get(waitName);
		if (awaited.state() == AwaitedDecision.State.TIMED_OUT) {
			throw new ChildTimeoutException(waitName, List.of(child.key()), awaited.until());
		}
		return result(child, awaited, type).get();
	}

	@Override
	public <T> List<ChildResult<T>> awaitAll(String name, Collection<ChildTask> children,
			ParameterizedTypeReference<T> type, Duration timeout) {
		List<String> waitNames = new ArrayList<>();
		Set<String> seen = new HashSet<>();
		for (ChildTask child : children) {
			if (!seen.add(child.name())) {
				throw new StepRejectedException("Wait '" + name + "' of the message at " + this.task.describe()
						+ " names child '" + child.name() + "' twice: pass each child once", null);
			}
			waitNames.add(child.resultWaitName());
		}
		Map<String, AwaitedDecision> found = this.waits.awaitDecisions(name, waitNames, timeout);
		List<String> unfinished = new ArrayList<>();
		Instant until = null;
		List<ChildResult<T>> results = new ArrayList<>();
		for (ChildTask child : children) {
			AwaitedDecision awaited = found.get(child.resultWaitName());
			if (awaited == null) {
				throw new StepRejectedException("Wait '" + name + "' of the message at " + this.task.describe()
						+ " ended in an earlier attempt of this run without child '" + child.name() + "': pass the same "
						+ "children to it on every attempt", null);
			}
			until = awaited.until();
			if (awaited.state() == AwaitedDecision.State.TIMED_OUT) {
				unfinished.add(child.key());
			}
			else {
				results.add(result(child, awaited, type));
			}
		}
		if (!unfinished.isEmpty()) {
			throw new ChildTimeoutException(name, unfinished, until);
		}
		return results;
	}

	private <T> ChildResult<T> result(ChildTask child, AwaitedDecision awaited, ParameterizedTypeReference<T> type) {
		ChildEnvelope envelope;
		try {
			envelope = this.mapper.readValue(awaited.json(), ChildEnvelope.class);
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("The result stored for child '" + child.name() + "' (key '" + child.key()
					+ "') of the message at " + this.task.describe() + " is not a child's: " + ex.getOriginalMessage(), ex);
		}
		ChildFailedException failure = envelope.failure(child);
		if (failure != null) {
			return new ChildResult<>(child, null, failure);
		}
		try {
			T value = (envelope.result() == null || envelope.result().isNull()) ? null
					: this.mapper.treeToValue(envelope.result(), this.mapper.getTypeFactory().constructType(type.getType()));
			return new ChildResult<>(child, value, null);
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("The result of child '" + child.name() + "' (key '" + child.key()
					+ "') cannot be read as " + type.getType().getTypeName() + " by the message at "
					+ this.task.describe() + ": " + ex.getOriginalMessage() + ". Await it as the type its listener "
					+ "returns", ex);
		}
	}

}
