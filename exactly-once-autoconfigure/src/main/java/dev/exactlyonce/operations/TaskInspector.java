package dev.exactlyonce.operations;

import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import dev.exactlyonce.store.FirstRecords;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordScanner;
import dev.exactlyonce.store.StepRecord;

/**
 * Reads tasks from the idempotency store for operators: one by key, or a consumer's tasks in one
 * status, a page at a time. Listing needs a store that is a {@link RecordScanner} (every bundled
 * store is); with another store, the page says so and stays empty, and tasks are read by key only.
 */
public class TaskInspector {

	/** The most tasks on one page. */
	public static final int MAX_PAGE_SIZE = 500;

	private final IdempotencyStore store;

	private final OperatedConsumers consumers;

	private final Clock clock;

	private final UnaryOperator<StepRecord> shownStep;

	private final TaskRelatives relatives;

	/**
	 * Creates the inspector.
	 * @param store the idempotency store
	 * @param consumers the declared consumers
	 * @param clock the clock that decides whether a lease ran out
	 * @param shownStep what operators see of each journal entry: {@link UnaryOperator#identity()}, or
	 * one that hides payloads (without {@code exactlyonce.operations.show-payloads})
	 */
	public TaskInspector(IdempotencyStore store, OperatedConsumers consumers, Clock clock,
			UnaryOperator<StepRecord> shownStep) {
		this.store = store;
		this.consumers = consumers;
		this.clock = clock;
		this.shownStep = shownStep;
		this.relatives = new TaskRelatives(store, consumers);
	}

	/**
	 * A task by key, with its parent and its children's statuses.
	 * @param consumer the consumer whose listener runs it
	 * @param key its key, without namespace
	 * @return the task, or empty when the store holds no record for it (never claimed, or expired)
	 */
	public Optional<TaskView> task(String consumer, String key) {
		Instant now = this.clock.instant();
		return this.store.find(this.consumers.storeKey(consumer, key))
			.map((record) -> this.relatives.of(TaskView.of(consumer, key, record, now, this.shownStep), now));
	}

	/**
	 * How many tasks each consumer has in each status, from one read of the whole store.
	 * @return the counts by consumer (every status present, 0 when none), or empty when the store
	 * cannot list its records
	 */
	public Optional<Map<String, Map<TaskStatus, Long>>> counts() {
		if (!(this.store instanceof RecordScanner scanner)) {
			return Optional.empty();
		}
		Instant now = this.clock.instant();
		Map<String, Map<TaskStatus, Long>> counts = new LinkedHashMap<>();
		Map<String, String> prefixes = new LinkedHashMap<>();
		for (String consumer : this.consumers.names()) {
			prefixes.put(consumer, this.consumers.keyPrefix(consumer));
			Map<TaskStatus, Long> byStatus = new EnumMap<>(TaskStatus.class);
			Arrays.stream(TaskStatus.values()).forEach((status) -> byStatus.put(status, 0L));
			counts.put(consumer, byStatus);
		}
		scanner.scan((record) -> prefixes.forEach((consumer, prefix) -> {
			if (record.key().startsWith(prefix)) {
				counts.get(consumer).merge(TaskStatus.of(record, now), 1L, Long::sum);
			}
		}));
		return Optional.of(counts);
	}

	/**
	 * A page of a consumer's tasks in one status, the latest attempt first (then by key). Reads
	 * the whole store: as slow as the store is large.
	 * @param consumer the consumer
	 * @param status the status
	 * @param page the page, 0 for the first
	 * @param size the most tasks on the page (1 to {@value #MAX_PAGE_SIZE})
	 * @return the page
	 */
	public TaskPage tasks(String consumer, TaskStatus status, int page, int size) {
		String prefix = this.consumers.keyPrefix(consumer);
		if (page < 0 || size < 1 || size > MAX_PAGE_SIZE) {
			throw OperationRefusedException.badRequest("Page " + page + " of size " + size + " is not a page: use page >= 0 "
					+ "and 1 <= size <= " + MAX_PAGE_SIZE);
		}
		if (!(this.store instanceof RecordScanner scanner)) {
			return new TaskPage(consumer, status, false, page, size, 0, List.of(), "The " + this.store.name()
					+ " store cannot list its records (it is not a RecordScanner): read tasks by key");
		}
		Instant now = this.clock.instant();
		FirstRecords matching = new FirstRecords(Comparator.comparing(IdempotencyRecord::startedAt,
				Comparator.reverseOrder()).thenComparing(IdempotencyRecord::key),
				(int) Math.min(Integer.MAX_VALUE, (long) (page + 1) * size));
		scanner.scan((record) -> {
			if (record.key().startsWith(prefix) && TaskStatus.of(record, now) == status) {
				matching.accept(record);
			}
		});
		List<TaskView> tasks = matching.inOrder()
			.stream()
			.skip((long) page * size)
			.map((record) -> TaskView.of(consumer, record.key().substring(prefix.length()), record, now,
					this.shownStep))
			.toList();
		return new TaskPage(consumer, status, true, page, size, matching.offered(), tasks, null);
	}

}
