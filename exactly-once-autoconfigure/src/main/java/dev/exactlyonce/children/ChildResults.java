package dev.exactlyonce.children;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

import dev.exactlyonce.children.spi.JournaledResult;
import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.waits.DecisionDelivery;
import dev.exactlyonce.waits.SignalOutcome;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * Reports a child's result to its parent, before the child's completion record: journals the first
 * result of the child's run (the pseudo-step {@value #RESULT_STEP}, so an attempt that runs again
 * after a crash reports that result, not a new one), stores it as the decision of the parent's wait
 * for it (id: the child's store key and run, so a repeat is a duplicate), tells the pipeline
 * ({@code PipelinePoint.CHILD_RESULT_STORED}), and resumes the parent if it waits for it. A crash
 * between any two of these repeats them on the next attempt, idempotently.
 */
final class ChildResults {

	/** The child's journal entry of its result. */
	static final String RESULT_STEP = "exactlyonce.result";

	private static final Log logger = LogFactory.getLog(ChildResults.class);

	private final Parents parents;

	private final DecisionDelivery decisions;

	private final JsonMapper mapper;

	private final long maxResultBytes;

	ChildResults(Parents parents, DecisionDelivery decisions, JsonMapper mapper, long maxResultBytes) {
		this.parents = parents;
		this.decisions = decisions;
		this.mapper = mapper;
		this.maxResultBytes = maxResultBytes;
	}

	void completing(WaitingTask task, Object result, Runnable resultStored) {
		ParentHeaders parent = ParentHeaders.readFrom(task.message().getHeaders());
		if (parent == null) {
			return;
		}
		String parentStoreKey = this.parents.storeKey(parent, task.describe());
		String json = journaledResult(task, result);
		ChildEnvelope envelope = new ChildEnvelope(parent.childName(), task.key(), task.consumer(),
				ChildEnvelope.Outcome.COMPLETED, this.mapper.readTree(json), null);
		SignalOutcome outcome = this.decisions.deliver(parentStoreKey, parent.run(), parent.resultWaitName(),
				this.mapper.writeValueAsString(envelope), "child:" + task.storeKey() + ":r" + task.run(),
				"child " + task.consumer() + "/" + task.key(), "child '" + parent.childName() + "' completed",
				resultStored);
		if (outcome == SignalOutcome.TOO_LATE || outcome == SignalOutcome.NO_SUCH_TASK) {
			logger.info("The result of child task '" + task.key() + "' (message at " + task.describe() + ") reached "
					+ "its parent " + parent + " " + outcome + ": the parent timed out, finished, was resubmitted or "
					+ "expired; the result is kept in the child's record only");
		}
	}

	Optional<JournaledResult> earlierResult(WaitingTask task, StepJournal journal, Type resultType) {
		if (ParentHeaders.readFrom(task.message().getHeaders()) == null) {
			return Optional.empty();
		}
		return journal.find(RESULT_STEP)
			.filter(ChildResults::isResult)
			.map((entry) -> new JournaledResult(readBack(entry.result(), resultType), entry.result()));
	}

	/** Whether the entry holds a journaled result (the run's first). */
	private static boolean isResult(StepRecord entry) {
		return entry.state() == StepState.DONE && entry.result() != null;
	}

	/** The result as the handler's return type, or {@code null} when it is not one (or is JSON null). */
	private Object readBack(String json, Type resultType) {
		try {
			Object value = this.mapper.readValue(json, this.mapper.constructType(resultType));
			return ClassUtils.isAssignableValue(ResolvableType.forType(resultType).toClass(), value) ? value : null;
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return null;
		}
	}

	/** The result journaled by an earlier attempt of the run, or this one's, journaled now. */
	private String journaledResult(WaitingTask task, Object result) {
		StepRecord earlier = task.begin(RESULT_STEP).orElse(null);
		if (earlier != null && isResult(earlier)) {
			return earlier.result();
		}
		byte[] json;
		try {
			json = this.mapper.writeValueAsBytes(result);
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("The result of child task '" + task.key() + "' (message at "
					+ task.describe() + ") cannot be written as JSON for its parent: " + ex.getOriginalMessage()
					+ ". Return a type Jackson can write (a record)", ex);
		}
		if (json.length > this.maxResultBytes) {
			throw new StepRejectedException("The result of child task '" + task.key() + "' (message at "
					+ task.describe() + ") is " + json.length + " bytes as JSON, above exactlyonce.steps.max-result-size ("
					+ this.maxResultBytes + " bytes): return a reference to it instead", null);
		}
		String text = new String(json, StandardCharsets.UTF_8);
		Instant now = Instant.now();
		task.journal(new StepRecord(RESULT_STEP, StepState.DONE, task.attempt(), text, now, now, task.token()));
		return text;
	}

}
