package dev.exactlyonce.operations;

import java.util.List;
import java.util.Objects;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;

/**
 * Reads the children a task started from its journal: each {@code startChild} is a step whose
 * result is the child task as JSON ({@code name}, {@code subject}, {@code key}, {@code stream},
 * {@code streamSequence}).
 */
final class ChildSteps {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final List<String> FIELDS = List.of("name", "subject", "key", "stream", "streamSequence");

	private ChildSteps() {
	}

	/**
	 * The children started in a journal, in the order their steps first started.
	 * @param steps the journal's steps
	 * @return the children, neither consumer nor status looked up
	 */
	static List<ChildLink> of(List<StepRecord> steps) {
		return steps.stream().map(ChildSteps::child).filter(Objects::nonNull).toList();
	}

	private static ChildLink child(StepRecord step) {
		if (step.state() != StepState.DONE || step.result() == null || !step.result().startsWith("{")) {
			return null;
		}
		JsonNode result;
		try {
			result = MAPPER.readTree(step.result());
		}
		catch (JacksonException notJson) {
			return null;
		}
		if (!FIELDS.stream().allMatch(result::has) || !step.name().equals(result.get("name").asString(""))) {
			return null;
		}
		return new ChildLink(step.name(), result.get("subject").asString(""), result.get("key").asString(""),
				result.get("stream").asString(""), null, null, null);
	}

}
