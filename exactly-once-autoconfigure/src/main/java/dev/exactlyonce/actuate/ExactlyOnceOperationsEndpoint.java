package dev.exactlyonce.actuate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.nats.client.JetStreamApiException;
import org.jspecify.annotations.Nullable;
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

/**
 * The {@code exactlyonceops} actuator endpoint: an operator's reads and writes on tasks and dead
 * letters. Reads: {@code GET /actuator/exactlyonceops} (consumers, tasks counted by status, dead
 * letters counted), {@code GET .../monthly} (the fleet-wide monthly table), {@code GET .../{consumer}/tasks?state=FAILED&page=0&size=50},
 * {@code GET .../{consumer}/tasks/{key}}, {@code GET .../{consumer}/deadletters?from=1&size=100}.
 * Writes: {@code POST .../{consumer}/deadletters/{sequence}} with {@code {"action":"replay","reason":...}},
 * {@code POST .../{consumer}/tasks/{key}} with {@code {"action":"resubmit","reason":...}} (or
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

	private static final int DEFAULT_PAGE_SIZE = 50;

	private final OperatedConsumers consumers;

	private final TaskInspector inspector;

	private final DeadLetterOperations deadLetters;

	private final TaskResubmitter resubmitter;

	private final MonthlyTally tally;

	private final String storeName;

	private final boolean showPayloads;

	/**
	 * Creates the endpoint.
	 * @param consumers the declared consumers
	 * @param inspector reads tasks
	 * @param deadLetters lists, replays and discards dead letters
	 * @param resubmitter resubmits tasks
	 * @param tally the fleet-wide monthly counts
	 * @param storeName the store's name
	 * @param showPayloads whether dead-letter listings include payloads
	 */
	public ExactlyOnceOperationsEndpoint(OperatedConsumers consumers, TaskInspector inspector,
			DeadLetterOperations deadLetters, TaskResubmitter resubmitter, MonthlyTally tally, String storeName,
			boolean showPayloads) {
		this.consumers = consumers;
		this.inspector = inspector;
		this.deadLetters = deadLetters;
		this.resubmitter = resubmitter;
		this.tally = tally;
		this.storeName = storeName;
		this.showPayloads = showPayloads;
	}

	/**
	 * The consumers, their tasks counted by status and their dead letters counted.
	 * @return the overview
	 */
	@ReadOperation
	public OperationsDescriptor operations() {
		Optional<Map<String, Map<TaskStatus, Long>>> counts = this.inspector.counts();
		Map<String, ConsumerOperations> consumers = new LinkedHashMap<>();
		for (String consumer : this.consumers.names()) {
			ConsumerSettings settings = this.consumers.settings(consumer);
			consumers.put(consumer, new ConsumerOperations(settings.stream(), settings.deadLetterSubject(),
					deadLetterCount(consumer), counts.map((all) -> all.get(consumer)).orElse(null),
					this.resubmitter.canResubmit(consumer).orElse(null)));
		}
		return new OperationsDescriptor(this.storeName, counts.isPresent(), this.showPayloads, consumers);
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
	 * Resubmits a task named in the body ({@code tasks}, {@code {"action":"resubmit","key":...}}): any
	 * key, also one that a path cannot carry (with {@code /}, {@code %}, {@code ;}, {@code ..}).
	 * @param consumer the consumer
	 * @param view {@code tasks}
	 * @param action {@code resubmit}
	 * @param key the task's key, without namespace
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, an error answer saying why it was refused, or {@code null} (404) for another view
	 */
	@WriteOperation
	public @Nullable Object actOnKey(@Selector String consumer, @Selector String view, String action,
			@Nullable String key, @Nullable String reason, SecurityContext securityContext) {
		if (!TASKS.equals(view)) {
			return null;
		}
		String operator = operator(securityContext);
		return answer(() -> {
			if (key == null || key.isEmpty() || !"resubmit".equals(action)) {
				throw OperationRefusedException.badRequest("POST to tasks resubmits the task named in the body: "
						+ "{\"action\":\"resubmit\",\"key\":\"...\",\"reason\":\"...\"}");
			}
			requireReason(reason, "add \"reason\" to the JSON body");
			return this.resubmitter.resubmit(consumer, key, operator, reason);
		});
	}

	/**
	 * Replays a dead letter ({@code deadletters/{sequence}}, action {@code replay}) or resubmits a
	 * task ({@code tasks/{key}}, action {@code resubmit}).
	 * @param consumer the consumer
	 * @param view {@code deadletters} or {@code tasks}
	 * @param id the dead letter's sequence or the task's key
	 * @param action {@code replay} or {@code resubmit}
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, or an error answer saying why it was refused
	 */
	@WriteOperation
	public Object act(@Selector String consumer, @Selector String view, @Selector(match = Match.ALL_REMAINING) String[] id,
			String action, @Nullable String reason, SecurityContext securityContext) {
		String operator = operator(securityContext);
		return answer(() -> {
			requireReason(reason, "add \"reason\" to the JSON body: {\"action\":\"" + action + "\",\"reason\":\"...\"}");
			if (DEAD_LETTERS.equals(view) && "replay".equals(action)) {
				return this.deadLetters.replay(consumer, sequence(id), operator, reason);
			}
			if (TASKS.equals(view) && "resubmit".equals(action)) {
				return this.resubmitter.resubmit(consumer, String.join("/", id), operator, reason);
			}
			throw OperationRefusedException.badRequest("'" + action + "' on " + view + " is not an operation: POST "
					+ "{\"action\":\"replay\"} to deadletters/<sequence>, or {\"action\":\"resubmit\"} to tasks/<key>");
		});
	}

	/**
	 * Discards a dead letter ({@code deadletters/{sequence}}).
	 * @param consumer the consumer
	 * @param view {@code deadletters}
	 * @param id the dead letter's sequence
	 * @param reason why, kept in the task's audit (required: a request without it is refused)
	 * @param securityContext who asks
	 * @return what was done, an error answer saying why it was refused, or {@code null} (404) for another view
	 */
	@DeleteOperation
	public @Nullable Object discard(@Selector String consumer, @Selector String view,
			@Selector(match = Match.ALL_REMAINING) String[] id, @Nullable String reason,
			SecurityContext securityContext) {
		if (!DEAD_LETTERS.equals(view)) {
			return null;
		}
		String operator = operator(securityContext);
		return answer(() -> {
			requireReason(reason, "add ?reason=... to the URL");
			return this.deadLetters.discard(consumer, sequence(id), operator, reason);
		});
	}

	private static void requireReason(@Nullable String reason, String fix) {
		if (reason == null || reason.isBlank()) {
			throw OperationRefusedException.badRequest("A reason is required (it is kept in the task's audit): " + fix);
		}
	}

	/** A 404 naming the key to ask for when {@code key} starts with the consumer's namespace, else {@code null}. */
	private Object namespacedKeyHint(String consumer, String key) {
		String prefix = this.consumers.keyPrefix(consumer);
		if (!key.startsWith(prefix)) {
			return new WebEndpointResponse<>(Map.of("error", "No task '" + key + "' of consumer '" + consumer
					+ "': the store holds no record of it (never claimed, or older than "
					+ "exactlyonce.store.completed-ttl)"), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		String unprefixed = key.substring(prefix.length());
		return new WebEndpointResponse<>(Map.of("error", "No task '" + key + "' of consumer '" + consumer + "': keys are "
				+ "given without the namespace '" + prefix + "' that logs and the store show; ask for tasks?key="
				+ URLEncoder.encode(unprefixed, StandardCharsets.UTF_8)), WebEndpointResponse.STATUS_NOT_FOUND);
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
