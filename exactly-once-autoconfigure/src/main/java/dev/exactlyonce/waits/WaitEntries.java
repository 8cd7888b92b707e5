package dev.exactlyonce.waits;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.core.ParameterizedTypeReference;

import dev.exactlyonce.listener.StepRejectedException;
import dev.exactlyonce.store.StepRecord;
import dev.exactlyonce.store.StepState;
import dev.exactlyonce.waits.spi.AwaitedDecision;

/**
 * A wait's entries in the step journal, whose results are JSON objects: a STARTED entry
 * {@code {"wait":"SIGNAL","until":"<instant>"}} ({@code SLEEP}, {@code CHILD}) (the deadline, journaled once, kept by every later
 * attempt), a DONE entry adding {@code "outcome"} ({@code SIGNALLED}, {@code TIMED_OUT} or
 * {@code WOKE}) and, for a signal, {@code "signalId"} and {@code "payload"}: so a wait that ended
 * returns the same on every later attempt of the run, whatever happens to the waits bucket.
 */
final class WaitEntries {

	private static final String WAIT = "wait";

	private static final String UNTIL = "until";

	private static final String OUTCOME = "outcome";

	private static final String PAYLOAD = "payload";

	private static final String SIGNAL_ID = "signalId";

	private static final String PAYLOAD_HIDDEN = "payloadHidden";

	private static final String DECISIONS = "decisions";

	private static final String DECIDED = "DECIDED";

	private final JsonMapper mapper;

	WaitEntries(JsonMapper mapper) {
		this.mapper = mapper;
	}

	/** The STARTED entry of a wait. */
	StepRecord started(String name, WaitTicket.Kind kind, Instant until, int attempt, String origin, Instant now) {
		ObjectNode result = this.mapper.createObjectNode().put(WAIT, kind.name()).put(UNTIL, until.toString());
		return new StepRecord(name, StepState.STARTED, attempt, result.toString(), now, null, origin);
	}

	/** The DONE entry of a signal wait that a decision ended. */
	StepRecord decided(StepRecord started, WaitDecision decision, int attempt, Instant now) {
		ObjectNode result = startedResult(started).put(OUTCOME, decision.outcome().name());
		if (decision.outcome() == WaitDecision.Outcome.SIGNALLED) {
			result.put(SIGNAL_ID, decision.signalId());
			result.set(PAYLOAD, this.mapper.readTree(decision.payload()));
		}
		return done(started, result, attempt, now);
	}

	/**
	 * The DONE entry of a wait for several decisions ({@code "outcome":"DECIDED"}, {@code "decisions"}:
	 * each one's name to its {@code "outcome"}, {@code SIGNALLED} or {@code TIMED_OUT}, and
	 * {@code "payload"}).
	 */
	StepRecord awaitedAll(StepRecord started, Map<String, AwaitedDecision> found, int attempt, Instant now) {
		ObjectNode decisions = this.mapper.createObjectNode();
		found.forEach((name, awaited) -> {
			ObjectNode decision = decisions.putObject(name);
			if (awaited.state() == AwaitedDecision.State.DECIDED) {
				decision.put(OUTCOME, WaitDecision.Outcome.SIGNALLED.name());
				decision.set(PAYLOAD, this.mapper.readTree(awaited.json()));
			}
			else {
				decision.put(OUTCOME, WaitDecision.Outcome.TIMED_OUT.name());
			}
		});
		ObjectNode result = startedResult(started).put(OUTCOME, DECIDED);
		result.set(DECISIONS, decisions);
		return done(started, result, attempt, now);
	}

	/** What a wait for several decisions found, from its DONE entry. */
	Map<String, AwaitedDecision> awaited(StepRecord done) {
		JsonNode result = readResult(done);
		if (!DECIDED.equals(result.path(OUTCOME).asString(null))) {
			throw new StepRejectedException("Journal entry '" + done.name() + "' is not a wait for decisions (such as "
					+ "child tasks' results): a step or another wait has its name in this run. Give each its own name",
					null);
		}
		Instant until = Instant.parse(result.path(UNTIL).asString());
		Map<String, AwaitedDecision> found = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> decision : result.path(DECISIONS).properties()) {
			boolean decided = WaitDecision.Outcome.SIGNALLED.name().equals(decision.getValue().path(OUTCOME).asString(null));
			found.put(decision.getKey(), decided
					? new AwaitedDecision(AwaitedDecision.State.DECIDED, decision.getValue().get(PAYLOAD).toString(), until)
					: new AwaitedDecision(AwaitedDecision.State.TIMED_OUT, null, until));
		}
		return found;
	}

	/** A stored decision or notice as a wait for several decisions sees it. */
	static AwaitedDecision awaited(WaitDecision decision, Instant until) {
		return switch (decision.outcome()) {
			case SIGNALLED -> new AwaitedDecision(AwaitedDecision.State.DECIDED, decision.payload(), until);
			case NOTICED -> new AwaitedDecision(AwaitedDecision.State.NOTICED, decision.payload(), until);
			case TIMED_OUT -> new AwaitedDecision(AwaitedDecision.State.TIMED_OUT, null, until);
		};
	}

	/** The DONE entry of a sleep that ended. */
	StepRecord woke(StepRecord started, int attempt, Instant now) {
		return done(started, startedResult(started).put(OUTCOME, "WOKE"), attempt, now);
	}

	private static StepRecord done(StepRecord started, ObjectNode result, int attempt, Instant now) {
		return new StepRecord(started.name(), StepState.DONE, attempt, result.toString(), started.startedAt(), now,
				started.origin());
	}

	/**
	 * The deadline of an earlier attempt's STARTED entry of this wait.
	 * @return the deadline, or empty when the entry is not a wait's (e.g. a FAILED step of that name)
	 */
	Optional<Instant> until(StepRecord entry, String waitName, WaitTicket.Kind kind) {
		if (entry.result() == null) {
			return Optional.empty();
		}
		JsonNode result = readResult(entry);
		if (!kind.name().equals(result.path(WAIT).asString(null))) {
			throw new StepRejectedException("Journal entry '" + waitName + "' is not a " + kind.name().toLowerCase()
					+ " wait (" + entry.state() + " " + result.path(WAIT).asString("step") + "): a step and a wait, or "
					+ "two kinds of wait, share the name in this run. Give each its own name", null);
		}
		return Optional.of(Instant.parse(result.path(UNTIL).asString()));
	}

	/**
	 * Whether an entry is a signal wait's DONE entry that this signal ended.
	 * @param entry a journal entry, maybe a step's
	 * @param signalId the signal's id
	 * @return whether the wait took that signal
	 */
	boolean tookSignal(StepRecord entry, String signalId) {
		return doneResult(entry)
			.filter((result) -> WaitDecision.Outcome.SIGNALLED.name().equals(result.path(OUTCOME).asString(null))
					&& signalId.equals(result.path(SIGNAL_ID).asString(null)))
			.isPresent();
	}

	/**
	 * An entry as operators see it when payloads are not shown: a signal wait's DONE entry without
	 * its {@code "payload"} (and with {@code "payloadHidden":true}), any other entry as it is.
	 * @param entry a journal entry, maybe a step's
	 * @return the entry to show
	 */
	StepRecord withoutPayload(StepRecord entry) {
		return doneResult(entry).filter((result) -> result.has(WAIT) && result.has(PAYLOAD))
			.map((result) -> {
				ObjectNode shown = (ObjectNode) result;
				shown.remove(PAYLOAD);
				shown.put(PAYLOAD_HIDDEN, true);
				return new StepRecord(entry.name(), entry.state(), entry.attempt(), shown.toString(), entry.startedAt(),
						entry.doneAt(), entry.origin());
			})
			.orElse(entry);
	}

	/** The JSON object result of a DONE entry; empty for any other entry or result. */
	private Optional<JsonNode> doneResult(StepRecord entry) {
		if (entry.state() != StepState.DONE || entry.result() == null) {
			return Optional.empty();
		}
		try {
			return Optional.of(this.mapper.readTree(entry.result())).filter(JsonNode::isObject);
		}
		catch (JacksonException ex) {
			return Optional.empty();
		}
	}

	/**
	 * The payload of a signal wait's DONE entry, or empty when it timed out.
	 * @throws StepRejectedException when the payload cannot be read as the type
	 */
	<T> Optional<T> payload(StepRecord done, ParameterizedTypeReference<T> type) {
		JsonNode result = readResult(done);
		if (!WaitDecision.Outcome.SIGNALLED.name().equals(result.path(OUTCOME).asString(null))) {
			return Optional.empty();
		}
		JavaType javaType = this.mapper.getTypeFactory().constructType(type.getType());
		try {
			return Optional.ofNullable(this.mapper.treeToValue(result.get(PAYLOAD), javaType));
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("The payload of signal '" + done.name() + "' cannot be read as "
					+ type.getType().getTypeName() + ": " + ex.getOriginalMessage(), ex);
		}
	}

	private ObjectNode startedResult(StepRecord started) {
		return (ObjectNode) readResult(started);
	}

	private JsonNode readResult(StepRecord entry) {
		try {
			return this.mapper.readTree(entry.result());
		}
		catch (JacksonException ex) {
			throw new StepRejectedException("Journal entry '" + entry.name() + "' is not a wait's: "
					+ ex.getOriginalMessage(), ex);
		}
	}

}
