package dev.exactlyonce.sample;

import java.util.Map;
import java.util.regex.Pattern;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;

/**
 * The "CEO agent": assigns tasks by publishing them on {@code agents.<assignee>.tasks.<type>}
 * with the task id as message id.
 */
@RestController
class CeoAgentController {

	private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]+");

	private final ExactlyOncePublisher publisher;

	CeoAgentController(ExactlyOncePublisher publisher) {
		this.publisher = publisher;
	}

	@PostMapping("/tasks")
	ResponseEntity<?> assign(@RequestBody TaskAssignment task) {
		for (String[] field : new String[][] { { "taskId", task.taskId() }, { "assignee", task.assignee() },
				{ "type", task.type() } }) {
			if (field[1] == null || !TOKEN.matcher(field[1]).matches()) {
				return ResponseEntity.badRequest()
					.body(Map.of("error", field[0] + " is required and may only contain letters, digits, '-' and '_'"));
			}
		}
		String subject = "agents." + task.assignee() + ".tasks." + task.type();
		PublishResult result = this.publisher.publish(subject, task, task.taskId());
		return ResponseEntity.ok(new TaskPublished(task.taskId(), result.streamSequence(), result.duplicate()));
	}

	/**
	 * The answer to a task assignment.
	 *
	 * @param taskId the task id
	 * @param streamSequence where the stream stored it
	 * @param duplicate whether the stream had it already
	 */
	record TaskPublished(String taskId, long streamSequence, boolean duplicate) {
	}

}
