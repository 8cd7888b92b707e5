package dev.exactlyonce.testapp;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.children.ChildTimeoutException;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * A second parent, on consumer {@code cfo} (enabled by {@code test.children.cfo=true}), keyed like
 * {@link CeoTaskHandler} by the task's id: starts one child {@code child-0} on the same subject with
 * the same default key and awaits it ({@code test.children.timeout}, 1 h by default).
 */
@ConditionalOnProperty("test.children.cfo")
public class CfoTaskHandler {

	private final Map<String, String> results = new ConcurrentHashMap<>();

	private final Environment environment;

	public CfoTaskHandler(Environment environment) {
		this.environment = environment;
	}

	@ExactlyOnceListener(consumer = "cfo", key = "payload.taskId")
	public String handle(TaskAssignment task, ExactlyOnceContext context) {
		ChildTask child = context.startChild("child-0", CeoTaskHandler.CHILD_SUBJECT,
				new CrewTaskHandler.Work("cfo-" + task.taskId(), 0));
		Duration timeout = this.environment.getProperty("test.children.timeout", Duration.class, Duration.ofHours(1));
		String result;
		try {
			result = "done " + context.awaitChild(child, CrewTaskHandler.Output.class, timeout).value();
		}
		catch (ChildTimeoutException ex) {
			result = "timed out " + ex.unfinished();
		}
		this.results.put(task.taskId(), result);
		return result;
	}

}
