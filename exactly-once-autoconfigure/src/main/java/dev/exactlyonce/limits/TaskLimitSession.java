package dev.exactlyonce.limits;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.limits.spi.LimitSession;
import dev.exactlyonce.waits.spi.WaitSuspension;
import dev.exactlyonce.waits.spi.WaitingTask;

/**
 * The limits one claimed delivery holds. A task over a limit throws a {@link WaitSuspension} of
 * kind {@code limit}, which the pipeline suspends like a durable sleep until the task's next look.
 */
final class TaskLimitSession implements LimitSession {

	private static final Log logger = LogFactory.getLog(TaskLimitSession.class);

	/** The kind of wait a task over a limit is suspended at. */
	static final String KIND = "limit";

	private final WaitingTask task;

	private final Duration lease;

	private final NatsTaskLimits limits;

	private final List<Held> held = new CopyOnWriteArrayList<>();

	private volatile Held queuedAt;

	private volatile WaitSuspension thrown;

	TaskLimitSession(WaitingTask task, Duration lease, NatsTaskLimits limits) {
		this.task = task;
		this.lease = lease;
		this.limits = limits;
	}

	@Override
	public void enter(String limit, String key) {
		LimitDefinition definition = this.limits.limit(limit, this.task);
		Held entered = new Held(definition, key);
		if (definition.concurrency() > 0 && this.held.contains(entered)) {
			this.held.add(entered); // a step under the limit and key its task holds: it shares the task's slot
			return;
		}
		Optional<Instant> next = this.limits.take(definition, key, this.task, this.lease);
		if (next.isEmpty()) {
			this.held.add(new Held(definition, key));
			return;
		}
		// said as kind + " '" + name + "'": "limit 'deploys' key 'checkout'"
		WaitSuspension suspension = new WaitSuspension(key.isEmpty() ? limit : limit + "' key '" + key, KIND,
				next.get());
		if (this.thrown == null) {
			this.thrown = suspension;
			this.queuedAt = new Held(definition, key);
		}
		throw this.thrown;
	}

	@Override
	public void leave(String limit, String key) {
		for (Held slot : this.held) {
			if (slot.limit().name().equals(limit) && slot.key().equals(key) && this.held.remove(slot)) {
				if (!this.held.contains(slot)) {
					give(slot);
				}
				return;
			}
		}
	}

	@Override
	public WaitSuspension thrown() {
		return this.thrown;
	}

	@Override
	public void close() {
		for (Held slot : new LinkedHashSet<>(this.held)) {
			this.held.removeIf(slot::equals);
			give(slot);
		}
		Held queued = this.queuedAt;
		if (queued != null) {
			try {
				this.limits.lookAgain(queued.limit(), queued.key(), this.task);
			}
			catch (RuntimeException ex) {
				logger.debug("The task at " + this.task.describe() + " waits for " + queued.limit().describe()
						+ "; its ticket resumes it: " + ex.getMessage());
			}
		}
	}

	private void give(Held slot) {
		try {
			this.limits.give(slot.limit(), slot.key(), this.task);
		}
		catch (RuntimeException ex) {
			logger.warn("The slot of " + slot.limit().describe() + " held by the task at " + this.task.describe()
					+ " was not given back (" + ex.getMessage() + "): it frees when its lease ends");
		}
	}

	/** A slot of a limit's key. */
	private record Held(LimitDefinition limit, String key) {
	}

}
