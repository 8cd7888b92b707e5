package dev.exactlyonce.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import io.nats.client.JetStreamApiException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.exactlyonce.actuate.OperationsDescriptor.ConsumerOperations;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.operations.DeadLetterOperations;
import dev.exactlyonce.operations.MonthlyRow;
import dev.exactlyonce.operations.MonthlyTally;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.operations.TaskInspector;
import dev.exactlyonce.operations.TaskResubmitter;
import dev.exactlyonce.operations.TaskStatus;
import dev.exactlyonce.store.JournalPartMissingException;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.waits.ExactlyOnceSignals;
import dev.exactlyonce.waits.SignalOutcome;

/**
 * The {@code exactlyonceops} actuator endpoint: an operator's reads and writes on tasks and dead
 * letters. Reads: {@code GET /actuator/exactlyonceops} (consumers, tasks counted by status, dead
 * letters counted), {@code GET .../monthly} (the fleet-wide monthly table), {@code GET .../{consumer}/tasks?state=FAILED&page=0&size=50},
 * {@code GET .../{consumer}/tasks/{key}}, {@code GET .../{consumer}/deadletters?from=1&size=100}.
 * Writes: {@code POST .../{consumer}/deadletters/{sequence}} with {@code {"action":"replay","reason":...}},
 * {@code POST .../{consumer}/tasks/{key}} with {@code {"action":"resubmit","reason":...}},
 * {@code POST .../{consumer}/tasks/{key}/signals/{name}} with {@code {"payload":"<JSON>","id":...,"reason":...}}
 * (a signal to the task's durable wait: answers its {@link SignalOutcome}) (or
 * {@code POST .../{consumer}/tasks} with the key in the body, and {@code GET .../tasks?key=...}: for
 * keys a path cannot carry),
 * {@code DELETE .../{consumer}/deadletters/{sequence}?reason=...} (discard). Read-only by default:
 * allow the writes with {@code management.endpoint.exactlyonceops.access=unrestricted}, behind
 * authentication; the authenticated user's name goes into the audit. A refused request answers
 * 400, 404, 409 or 503 by its {@link OperationRefusedException.Kind} with {@code {"error": "..."}}
 * saying why and what to do instead.
 */
@Endpoint(id = "exactlyonceops", defaultAccess = Access.READ_ONLY)
public class ExactlyOnceOperationsEndpoint {

	private static final int CONFLICT = 409;

	private static final int UNAVAILABLE = 503;

	private static final String TASKS = "tasks";

	private static final String DEAD_LETTERS = "deadletters";

	private static final String SIGNALS = "signals";

	private static final String SIGNAL = "signal";

	private static final int DEFAULT_PAGE_SIZE = 50;

	private static final JsonMapper PAYLOADS = JsonMapper.builder().build();

	private static final String SIGNAL_BODY = "{\"payload\":\"<the payload's JSON>\",\"id\":\"...\",\"reason\":\"...\"}";

	private final OperatedConsumers consumers;

	private final TaskInspector inspector;

	private final DeadLetterOperations deadLetters;

	private final TaskResubmitter resubmitter;

	private final @Nullable ExactlyOnceSignals signals;

	private final MonthlyTally tally;

	private final String storeName;

	private final boolean showPayloads;

	/**
	 * Creates the endpoint.
	 * @param consumers the declared consumers
	 * @param inspector reads tasks
	 * @param deadLetters lists, replays and discards dead letters
	 * @param resubmitter resubmits tasks
	 * @param signals sends signals to waiting tasks, or {@code null} when durable waits are off
	 * @param tally the fleet-wide monthly counts
	 * @param storeName the store's name
	 * @param showPayloads whether dead-letter listings include payloads
	 */
	public ExactlyOnceOperationsEndpoint(OperatedConsumers consumers, TaskInspector inspector,
			DeadLetterOperations deadLetters, TaskResubmitter resubmitter, @Nullable ExactlyOnceSignals signals,
			MonthlyTally tally, String storeName, boolean showPayloads) {
		this.consumers = consumers;
		this.inspector = inspector;
		this.deadLetters = deadLetters;
		this.resubmitter = resubmitter;
		this.signals = signals;
		this.tally = tally;
		this.storeName = storeName;
		this.showPayloads = showPayloads;
	}

	/**
	 * The consumers, their tasks counted by status and their dead letters counted.
	 * @param securityContext who asks (named in the answer)
	 * @return the overview
	 */
	@ReadOperation
	public OperationsDescriptor operations(SecurityContext securityContext) {
		Optional<Map<String, Map<TaskStatus, Long>>> counts = this.inspector.counts();
		Map<String, ConsumerOperations> consumers = new LinkedHashMap<>();
		for (String consumer : this.consumers.names()) {
			ConsumerSettings settings = this.consumers.settings(consumer);
			consumers.put(consumer, new ConsumerOperations(settings.stream(), settings.deadLetterSubject(),
					deadLetterCount(consumer), counts.map((all) -> all.get(consumer)).orElse(null),
					this.resubmitter.canResubmit(consumer).orElse(null)));
		}
		return new OperationsDescriptor(this.storeName, counts.isPresent(), this.showPayloads, operator(securityContext),
				consumers);
	}

	/**
	 * The fleet-wide monthly table ({@code monthly}).
	 * @param part {@code monthly}
	 * @return the rows, oldest month first, or {@code null} (404) for another part
	 */
	@ReadOperation
	public @Nullable List<MonthlyRow> part(@Selector String part) {
		if (!"monthly".equals(part)) {
			return null;
		}
		try {
			return this.tally.rows();
		}
		catch (IOException | JetStreamApiException ex) {
			throw new UncheckedIOException(new IOException("Tally bucket could not be read: " + ex.getMessage(), ex));
		}
	}

	/**
	 * A consumer's tasks in one status ({@code tasks}) or its dead letters ({@code deadletters}).
	 * @param consumer the consumer
	 * @param view {@code tasks} or {@code deadletters}
	 * @param state the status listed (tasks only; required)
	 * @param page the page, 0 for the first (tasks only)
	 * @param size the most entries (50 by default)
	 * @param from the first dead-letter stream sequence listed (dead letters only; 1 by default)
	 * @param key one task's key, without namespace (tasks only: answers that task as {@code tasks/{key}}
	 * does, for keys a path cannot carry)
	 * @return the page or list, an error answer when refused, or {@code null} (404) for another view
	 */
	@ReadOperation
	public @Nullable Object list(@Selector String consumer, @Selector String view, @Nullable TaskStatus state,
			@Nullable Integer page, @Nullable Integer size, @Nullable Long from, @Nullable String key) {
		int limit = (size != null) ? size : DEFAULT_PAGE_SIZE;
		if (TASKS.equals(view) && key != null) {
			return task(consumer, key);
		}
		return switch (view) {
			case TASKS -> answer(() -> {
				if (state == null) {
					throw OperationRefusedException.badRequest("Name the status to list: ?state=IN_PROGRESS, ABANDONED, "
							+ "FAILED, DEAD_LETTERED or COMPLETED");
				}
				return this.inspector.tasks(consumer, state, (page != null) ? page : 0, limit);
			});
			case DEAD_LETTERS -> answer(() -> this.deadLetters.list(consumer, (from != null) ? from : 1, limit));
			default -> null;
		};
	}

	/**
	 * One task by key ({@code tasks/{key}}).
	 * @param consumer the consumer
	 * @param view {@code tasks}
	 * @param key the key without namespace (path segments are joined with {@code /})
	 * @return the task, or a 404 answer when the store holds no record of it (naming the key to ask for
	 * when the key was given with the consumer's namespace)
	 */
	@ReadOperation
	public @Nullable Object task(@Selector String consumer, @Selector String view,
			@Selector(match = Match.ALL_REMAINING) String[] key) {
		if (!TASKS.equals(view)) {
			return null;
		}
		return task(consumer, String.join("/", key));
	}

	private @Nullable Object task(String consumer, String key) {
		return answer(() -> this.inspector.task(consumer, key).map(Object.class::cast)
			.orElseGet(() -> namespacedKeyHint(consumer, key)));
	}

	/**
	 * Resubmits a task named in the body ({@code tasks}, {@code {"action":"resubmit","key":...}}), or
	 * sends a signal to it ({@code {"action":"signal","key":...,"name":...,"payload":...}}): any key
	 * and signal name, also one that a path cannot carry (with {@code /}, {@code %}, {@code ;}, {@code ..}).
	 * @param consumer the consumer
	 * @param view {@code tasks}
	 * @param action {@code resubmit} or {@code signal}
	 * @param key the task's key, without namespace
	 * @param name the wait's name (signal only)
	 * @param payload the JSON of what the wait returns, any but {@code null}, as a string (Actuator reads
	 * a body's values as strings: {@code "{\"approved\":true}"}; {@code true} or a number may be bare)
	 * (signal only)
	 * @param id the signal's id: the same id sent again is a {@code DUPLICATE}; made up when absent (signal only)
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, an error answer saying why it was refused, or {@code null} (404) for another view
	 */
	@WriteOperation
	public @Nullable Object actOnKey(@Selector String consumer, @Selector String view, String action,
			@Nullable String key, @Nullable String name, @Nullable String payload, @Nullable String id,
			@Nullable String reason, SecurityContext securityContext) {
		if (!TASKS.equals(view)) {
			return null;
		}
		String operator = operator(securityContext);
		return answer(() -> {
			boolean signal = SIGNAL.equals(action) && name != null && !name.isEmpty();
			if (key == null || key.isEmpty() || !("resubmit".equals(action) || signal)) {
				throw OperationRefusedException.badRequest("POST to tasks resubmits the task named in the body, or sends "
						+ "it a signal: {\"action\":\"resubmit\",\"key\":\"...\",\"reason\":\"...\"} or "
						+ "{\"action\":\"signal\",\"key\":\"...\",\"name\":\"...\",\"payload\":\"<the payload's JSON>\",\"id\":\"...\","
						+ "\"reason\":\"...\"}");
			}
			requireReason(reason, "add \"reason\" to the JSON body");
			if (signal) {
				return signal(consumer, key, name, payload, id, operator, reason);
			}
			return this.resubmitter.resubmit(consumer, key, operator, reason);
		});
	}

	/**
	 * Replays a dead letter ({@code deadletters/{sequence}}, action {@code replay}), resubmits a task
	 * ({@code tasks/{key}}, action {@code resubmit}) or sends a signal to a task's wait
	 * ({@code tasks/{key}/signals/{name}}, no action, {@code payload} and optionally {@code id}).
	 * @param consumer the consumer
	 * @param view {@code deadletters} or {@code tasks}
	 * @param target the dead letter's sequence, the task's key, or the task's key then {@code signals}
	 * and the wait's name
	 * @param action {@code replay} or {@code resubmit}; none (or {@code signal}) for a signal
	 * @param payload the JSON of what the wait returns, any but {@code null}, as a string (Actuator reads
	 * a body's values as strings: {@code "{\"approved\":true}"}; {@code true} or a number may be bare)
	 * (signals only)
	 * @param id the signal's id: the same id sent again is a {@code DUPLICATE}; made up when absent
	 * (signals only)
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, or an error answer saying why it was refused
	 */
	@WriteOperation
	public Object act(@Selector String consumer, @Selector String view,
			@Selector(match = Match.ALL_REMAINING) String[] target, @Nullable String action, @Nullable String payload,
			@Nullable String id, @Nullable String reason, SecurityContext securityContext) {
		String operator = operator(securityContext);
		boolean signal = TASKS.equals(view) && (action == null || SIGNAL.equals(action)) && target.length >= 3
				&& SIGNALS.equals(target[target.length - 2]);
		return answer(() -> {
			if (signal) {
				requireReason(reason, "add \"reason\" to the JSON body: " + SIGNAL_BODY);
				return signal(consumer, String.join("/", List.of(target).subList(0, target.length - 2)),
						target[target.length - 1], payload, id, operator, reason);
			}
			if (action == null) {
				throw OperationRefusedException.badRequest("Name the action in the JSON body: {\"action\":\"replay\"} for "
						+ "deadletters/<sequence>, {\"action\":\"resubmit\"} for tasks/<key> (or POST {\"payload\":...} to "
						+ "tasks/<key>/signals/<name>)");
			}
			requireReason(reason, "add \"reason\" to the JSON body: {\"action\":\"" + action + "\",\"reason\":\"...\"}");
			if (DEAD_LETTERS.equals(view) && "replay".equals(action)) {
				return this.deadLetters.replay(consumer, sequence(target), operator, reason);
			}
			if (TASKS.equals(view) && "resubmit".equals(action)) {
				return this.resubmitter.resubmit(consumer, String.join("/", target), operator, reason);
			}
			throw OperationRefusedException.badRequest("'" + action + "' on " + view + " is not an operation: POST "
					+ "{\"action\":\"replay\"} to deadletters/<sequence>, {\"action\":\"resubmit\"} to tasks/<key>, or "
					+ "{\"payload\":...} to tasks/<key>/signals/<name>");
		});
	}

	/**
	 * Sends a signal on the operator's behalf: 200 with a {@link SignalAnswer} when it resumed the
	 * task, was kept for it or was sent before; 409 when its wait cannot take it; 404 when the store
	 * has no record of the task; 503 when the store or NATS did not answer (send it again with the same id).
	 */
	private Object signal(String consumer, String key, String name, @Nullable String payload, @Nullable String id,
			String operator, String reason) {
		if (this.signals == null) {
			throw OperationRefusedException.notFound("Durable waits are off in this application "
					+ "(exactlyonce.waits.enabled=false): no task of it waits for a signal");
		}
		JsonNode json = payload(payload);
		String signalId = (id != null && !id.isBlank()) ? id : UUID.randomUUID().toString();
		SignalOutcome outcome;
		try {
			outcome = this.signals.signal(consumer, key, name, json, signalId, operator, reason);
		}
		catch (StoreUnavailableException ex) {
			return new WebEndpointResponse<>(Map.of("error", "The signal may or may not be stored: " + ex.getMessage()
					+ ". Send it again with the same id (" + signalId + "): it is taken once", "id", signalId), UNAVAILABLE);
		}
		String meaning = SignalAnswer.meaning(outcome, name, signalId);
		return switch (outcome) {
			case RESUMED, BUFFERED, DUPLICATE -> new SignalAnswer(consumer, key, name, signalId, outcome, meaning);
			case TOO_LATE -> new WebEndpointResponse<>(Map.of("error", meaning, "outcome", outcome, "id", signalId),
					CONFLICT);
			case NO_SUCH_TASK -> new WebEndpointResponse<>(Map.of("error", "No task '" + key + "' of consumer '" + consumer
					+ "': " + withoutNamespace(consumer, key).map((unprefixed) -> keysAreUnprefixed(consumer)
							+ "send the signal with the key '" + unprefixed + "'").orElse(meaning),
					"outcome", outcome, "id", signalId), WebEndpointResponse.STATUS_NOT_FOUND);
		};
	}

	/**
	 * Discards a dead letter ({@code deadletters/{sequence}}).
	 * @param consumer the consumer
	 * @param view {@code deadletters}
	 * @param target the dead letter's sequence
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, an error answer saying why it was refused, or {@code null} (404) for another view
	 */
	@DeleteOperation
	public @Nullable Object discard(@Selector String consumer, @Selector String view,
			@Selector(match = Match.ALL_REMAINING) String[] target, @Nullable String reason,
			SecurityContext securityContext) {
		if (!DEAD_LETTERS.equals(view)) {
			return null;
		}
		String operator = operator(securityContext);
		return answer(() -> {
			requireReason(reason, "add ?reason=... to the URL");
			return this.deadLetters.discard(consumer, sequence(target), operator, reason);
		});
	}

	/**
	 * The payload's JSON, from the string Actuator hands over (a JSON object or string must come as
	 * its JSON text; {@code true}, {@code false} and numbers arrive as their text anyway).
	 */
	private static JsonNode payload(@Nullable String payload) {
		if (payload == null || payload.isBlank()) {
			throw OperationRefusedException.badRequest("A signal needs a \"payload\": " + SIGNAL_BODY);
		}
		JsonNode json;
		try {
			json = PAYLOADS.readTree(payload);
		}
		catch (JacksonException ex) {
			throw OperationRefusedException.badRequest("The \"payload\" is not JSON (" + ex.getOriginalMessage() + "). Send "
					+ "the payload's JSON as a string: an object as \"{\\\"approved\\\":true}\", a string quoted inside: "
					+ "\"\\\"text\\\"\"; true, false and numbers may be bare");
		}
		if (json == null || json.isNull() || json.isMissingNode()) {
			throw OperationRefusedException.badRequest("A signal's \"payload\" cannot be null: its wait would read it "
					+ "as its timeout. " + SIGNAL_BODY);
		}
		return json;
	}

	private static void requireReason(@Nullable String reason, String fix) {
		if (reason == null || reason.isBlank()) {
			throw OperationRefusedException.badRequest("A reason is required (it is kept in the task's audit): " + fix);
		}
	}

	/** A 404 for a task the store holds no record of, naming the key to ask for when it was given with its namespace. */
	private Object namespacedKeyHint(String consumer, String key) {
		String fix = withoutNamespace(consumer, key)
			.map((unprefixed) -> keysAreUnprefixed(consumer) + "ask for tasks?key="
					+ URLEncoder.encode(unprefixed, StandardCharsets.UTF_8))
			.orElse("the store holds no record of it (never claimed, or older than exactlyonce.store.completed-ttl)");
		return new WebEndpointResponse<>(Map.of("error", "No task '" + key + "' of consumer '" + consumer + "': " + fix),
				WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/** The key without the consumer's namespace, when it was given with it. */
	private Optional<String> withoutNamespace(String consumer, String key) {
		String prefix = this.consumers.keyPrefix(consumer);
		return key.startsWith(prefix) ? Optional.of(key.substring(prefix.length())) : Optional.empty();
	}

	private String keysAreUnprefixed(String consumer) {
		return "keys are given without the namespace '" + this.consumers.keyPrefix(consumer)
				+ "' that logs and the store show; ";
	}

	private @Nullable Long deadLetterCount(String consumer) {
		try {
			return this.deadLetters.count(consumer);
		}
		catch (UncheckedIOException ex) {
			return null;
		}
	}

	private static long sequence(String[] id) {
		try {
			return Long.parseLong(String.join("/", id));
		}
		catch (NumberFormatException ex) {
			throw OperationRefusedException.badRequest("'" + String.join("/", id) + "' is not a dead-letter sequence: use the "
					+ "sequence the dead-letter listing shows");
		}
	}

	private static String operator(SecurityContext securityContext) {
		return (securityContext.getPrincipal() != null) ? securityContext.getPrincipal().getName() : "anonymous";
	}

	private static int status(OperationRefusedException.Kind kind) {
		return switch (kind) {
			case BAD_REQUEST -> WebEndpointResponse.STATUS_BAD_REQUEST;
			case NOT_FOUND -> WebEndpointResponse.STATUS_NOT_FOUND;
			case CONFLICT -> CONFLICT;
			case UNAVAILABLE -> UNAVAILABLE;
		};
	}

	/**
	 * The result, or an answer with the message (Boot's error page would hide it): a refusal answers
	 * by its kind (400 a wrong request, 404 nothing by that name, 409 a state that does not allow it,
	 * 503 NATS did not answer), a task whose step journal lost a sealed part 409 (it names the part
	 * and what can be done), an idempotency store that could not be read or written 503.
	 */
	private static @Nullable Object answer(Supplier<@Nullable Object> operation) {
		try {
			return operation.get();
		}
		catch (OperationRefusedException ex) {
			return new WebEndpointResponse<>(Map.of("error", ex.getMessage()), status(ex.kind()));
		}
		catch (JournalPartMissingException ex) {
			return new WebEndpointResponse<>(Map.of("error", ex.getMessage()), CONFLICT);
		}
		catch (StoreUnavailableException ex) {
			String error = "The idempotency store could not be read or written: " + ex.getMessage() + ". Ask again: an "
					+ "action the store recorded before its answer was lost is found on the task's record and not "
					+ "recorded twice";
			return new WebEndpointResponse<>(Map.of("error", error), UNAVAILABLE);
		}
	}

}
