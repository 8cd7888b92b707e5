package dev.exactlyonce.operations;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import dev.exactlyonce.store.IdempotencyStore;

/**
 * Links a task to its relatives for operators: the status of each child it started (looked up under
 * every consumer on the child's stream; the first {@value #MAX_LOOKED_UP} children only: a dashboard reads a
 * task every 2 seconds), and the parent that started it. The parent is found through
 * the key a child gets by default ({@code <parent consumer>/<parent key>/<name>},
 * {@code <parent consumer>/<parent key>/run-<n>/<name>} after a resubmit) and kept only when that parent's journal names this very key, so a child started
 * with a key of its own shows no parent.
 */
class TaskRelatives {

	/** How many of a task's children have their records read. */
	static final int MAX_LOOKED_UP = 100;

	private static final Pattern RUN = Pattern.compile("run-[0-9]+");

	private final IdempotencyStore store;

	private final OperatedConsumers consumers;

	TaskRelatives(IdempotencyStore store, OperatedConsumers consumers) {
		this.store = store;
		this.consumers = consumers;
	}

	/**
	 * A task with its children's statuses and its parent.
	 * @param task the task as {@link TaskView#of} read it
	 * @param now the current time
	 * @return the task with its relatives
	 */
	TaskView of(TaskView task, Instant now) {
		List<ChildLink> children = new ArrayList<>(task.children());
		children.subList(0, Math.min(MAX_LOOKED_UP, children.size())).replaceAll((child) -> lookUp(child, now));
		return task.withRelatives(parent(task.key(), now).orElse(null), List.copyOf(children));
	}

	private ChildLink lookUp(ChildLink child, Instant now) {
		for (String consumer : this.consumers.names()) {
			if (this.consumers.settings(consumer).stream().equals(child.stream())) {
				Optional<TaskView> found = read(consumer, child.key(), now);
				if (found.isPresent()) {
					return child.found(consumer, found.get());
				}
			}
		}
		return child;
	}

	private Optional<ParentLink> parent(String key, Instant now) {
		for (String consumer : this.consumers.names()) {
			if (key.startsWith(consumer + "/")) {
				Optional<ParentLink> parent = parentOf(consumer, key, key.substring(consumer.length() + 1), now);
				if (parent.isPresent()) {
					return parent;
				}
			}
		}
		return Optional.empty();
	}

	/** The parent under {@code consumer} whose key {@code rest} starts with (then an optional run, a name). */
	private Optional<ParentLink> parentOf(String consumer, String childKey, String rest, Instant now) {
		for (int slash = rest.lastIndexOf('/'); slash > 0; slash = rest.lastIndexOf('/', slash - 1)) {
			String prefix = rest.substring(0, slash);
			int runSlash = prefix.lastIndexOf('/');
			if (runSlash > 0 && RUN.matcher(prefix.substring(runSlash + 1)).matches()) {
				prefix = prefix.substring(0, runSlash);
				slash = runSlash;
			}
			String parentKey = prefix;
			Optional<ParentLink> parent = read(consumer, parentKey, now).flatMap((task) -> task.children()
				.stream()
				.filter((child) -> child.key().equals(childKey))
				.findFirst()
				.map((child) -> new ParentLink(consumer, parentKey, child.name())));
			if (parent.isPresent()) {
				return parent;
			}
		}
		return Optional.empty();
	}

	private Optional<TaskView> read(String consumer, String key, Instant now) {
		return this.store.find(this.consumers.storeKey(consumer, key))
			.map((record) -> TaskView.of(consumer, key, record, now, UnaryOperator.identity()));
	}

}
