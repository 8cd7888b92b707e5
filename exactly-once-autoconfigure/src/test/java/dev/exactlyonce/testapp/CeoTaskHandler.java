package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.children.ChildFailedException;
import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.children.ChildTimeoutException;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A parent that hands work to child tasks, on consumer {@code ceo} (enabled by
 * {@code test.children.parent=true}): starts {@code test.children.count} (3) children
 * {@code child-<n>} on {@code agents.crew.tasks.work} (held after {@code test.children.hold-after}
 * of them until {@link #release()}, as a parent killed mid-fan-out), with {@code test.children.nap}
 * sleeps {@code nap} first, then awaits them: {@code test.children.await=all} (default) with
 * {@code awaitAll("crew", ...)}, {@code each} with {@code awaitChild} one after the other. A failed
 * child is reported in the result ({@code failed <key> (discarded|dead-lettered): <reason>}), a
 * timeout as {@code timed out <keys>}; else {@code done <results>}. With {@code test.children.posts} the
 * children are transactional posts ({@link TransactionalPostHandler}, key {@code <task>-post-<n>}),
 * awaited together with their results read as plain JSON values; with {@code test.children.own-keys} the
 * children are given keys of the parent's choosing ({@code <task>-own-<n>}); with
 * {@code test.children.namespace} the listener stores its keys under that namespace of its own.
 */
@ConditionalOnProperty("test.children.parent")
public class CeoTaskHandler {

	/** The subject of the children. */
	public static final String CHILD_SUBJECT = "agents.crew.tasks.work";

	/** The subject of the transactional children ({@link TransactionalPostHandler}). */
	public static final String POST_SUBJECT = "agents.posts.tasks.write";

	private final Map<String, String> results = new ConcurrentHashMap<>();

	private final CountDownLatch held = new CountDownLatch(1);

	private final CountDownLatch holding = new CountDownLatch(1);

	private final Environment environment;

	public CeoTaskHandler(Environment environment) {
		this.environment = environment;
	}

	@ExactlyOnceListener(consumer = "ceo", key = "payload.taskId", namespace = "${test.children.namespace:}")
	public String handle(TaskAssignment task, ExactlyOnceContext context) throws InterruptedException {
		int count = this.environment.getProperty("test.children.count", Integer.class, 3);
		int holdAfter = this.environment.getProperty("test.children.hold-after", Integer.class, -1);
		List<ChildTask> children = new ArrayList<>();
		for (int n = 0; n < count; n++) {
			if (n == holdAfter) {
				this.holding.countDown();
				this.held.await(60, TimeUnit.SECONDS);
			}
			children.add(this.environment.getProperty("test.children.posts", Boolean.class, false)
					? context.startChild("child-" + n, POST_SUBJECT, TaskAssignment.of(task.taskId() + "-post-" + n),
							task.taskId() + "-post-" + n, Map.of())
					: context.startChild("child-" + n, CHILD_SUBJECT, new CrewTaskHandler.Work(task.taskId(), n),
							this.environment.getProperty("test.children.own-keys", Boolean.class, false)
									? task.taskId() + "-own-" + n : null, Map.of()));
		}
		Duration nap = this.environment.getProperty("test.children.nap", Duration.class);
		if (nap != null) {
			context.sleep("nap", nap);
		}
		Duration timeout = this.environment.getProperty("test.children.timeout", Duration.class, Duration.ofHours(1));
		String result;
		try {
			if (this.environment.getProperty("test.children.posts", Boolean.class, false)) {
				result = "done " + context.awaitAll("crew", children, timeout).stream()
					.map((child) -> String.valueOf(child.get()))
					.collect(Collectors.joining(","));
			}
			else if ("each".equals(this.environment.getProperty("test.children.await", "all"))) {
				List<String> outputs = new ArrayList<>();
				for (ChildTask child : children) {
					outputs.add(context.awaitChild(child, CrewTaskHandler.Output.class, timeout).value());
				}
				result = "done " + String.join(",", outputs);
			}
			else {
				List<ChildResult<CrewTaskHandler.Output>> all = context.awaitAll("crew", children,
						CrewTaskHandler.Output.class, timeout);
				result = "done " + all.stream().map((child) -> child.get().value()).collect(Collectors.joining(","));
			}
		}
		catch (ChildFailedException ex) {
			result = "failed " + ex.childKey() + " (" + (ex.isDiscarded() ? "discarded" : "dead-lettered") + "): "
					+ ex.reason();
		}
		catch (ChildTimeoutException ex) {
			result = "timed out " + ex.unfinished();
		}
		this.results.put(task.taskId(), result);
		return result;
	}

	/** Waits until a handler holds mid-fan-out. */
	public boolean awaitHolding() throws InterruptedException {
		return this.holding.await(30, TimeUnit.SECONDS);
	}

	/** Lets a held handler go on. */
	public void release() {
		this.held.countDown();
	}

	/** The result of a parent this instance finished, or {@code null}. */
	public String result(String taskId) {
		return this.results.get(taskId);
	}

}
