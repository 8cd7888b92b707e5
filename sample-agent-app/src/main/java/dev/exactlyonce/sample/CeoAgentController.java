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
 * The "CEO agent"'s front door: assigns tasks by publishing them on {@code agents.<assignee>.tasks.<type>}
 * with the task id as message id, and campaigns on {@value CeoAgent#CAMPAIGNS} with the campaign id as
 * message id (the {@link CeoAgent} runs them).
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
		String error = invalid(new String[][] { { "taskId", task.taskId() }, { "assignee", task.assignee() },
				{ "type", task.type() } });
		if (error != null) {
			return ResponseEntity.badRequest().body(Map.of("error", error));
		}
		String subject = "agents." + task.assignee() + ".tasks." + task.type();
		PublishResult result = this.publisher.publish(subject, task, task.taskId());
		return ResponseEntity.ok(new TaskPublished(task.taskId(), result.streamSequence(), result.duplicate()));
	}

	@PostMapping("/campaigns")
	ResponseEntity<?> launch(@RequestBody Campaign campaign) {
		String error = invalid(new String[][] { { "campaignId", campaign.campaignId() } });
		if (error == null && (campaign.topic() == null || campaign.topic().isBlank())) {
			error = "topic is required";
		}
		if (error != null) {
			return ResponseEntity.badRequest().body(Map.of("error", error));
		}
		PublishResult result = this.publisher.publish(CeoAgent.CAMPAIGNS, campaign, campaign.campaignId());
		return ResponseEntity.ok(new TaskPublished(campaign.campaignId(), result.streamSequence(), result.duplicate()));
	}

	/** The first field that is missing or not a token, said as an error; {@code null} when all are fine. */
	private static String invalid(String[][] fields) {
		for (String[] field : fields) {
			if (field[1] == null || !TOKEN.matcher(field[1]).matches()) {
				return field[0] + " is required and may only contain letters, digits, '-' and '_'";
			}
		}
		return null;
	}

	/**
	 * The answer to a task assignment or a campaign.
	 *
	 * @param taskId the task id (the campaign id for a campaign)
	 * @param streamSequence where the stream stored it
	 * @param duplicate whether the stream had it already
	 */
	record TaskPublished(String taskId, long streamSequence, boolean duplicate) {
	}

}
