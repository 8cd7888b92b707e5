package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.StepOptions;

/**
 * A listener under limit {@code deploys} (keyed by the task's assignee) whose step {@code call} is under the
 * same limit and key (enabled by {@code test.limits.nested=true}, consumer {@code nested}); after the step it
 * works 1 s. Counts the tasks running at once, the most ever, and the completed ones.
 */
@ConditionalOnProperty("test.limits.nested")
public class NestedLimitTaskHandler {

	private static final AtomicInteger RUNNING = new AtomicInteger();

	private static final AtomicInteger MOST_RUNNING = new AtomicInteger();

	@ExactlyOnceListener(consumer = "nested", key = "payload.taskId", limit = "deploys", limitKey = "payload.assignee")
	public void handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		context.step("call", String.class, () -> "called", StepOptions.limit("deploys", task.assignee()));
		MOST_RUNNING.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
		try {
			Thread.sleep(Duration.ofSeconds(1).toMillis());
		}
		finally {
			RUNNING.decrementAndGet();
		}
	}

	/** The most tasks that ever ran past the limited step at once. */
	public static int mostRunning() {
		return MOST_RUNNING.get();
	}

	/** Forgets what was seen. */
	public static void reset() {
		RUNNING.set(0);
		MOST_RUNNING.set(0);
	}

}
