package dev.exactlyonce.it;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.nats.client.api.MessageInfo;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What other clients (nats.js, nats.go, a raw {@code HPUB}) can send is part of the contract: a
 * seeded, deterministic mix of UTF-8 header values and names, odd and huge ids, huge headers,
 * invalid UTF-8 and deeply nested bodies. Each message ends in exactly one recorded outcome
 * (processed once, or one dead letter), nothing stays unsettled, and the listener keeps working.
 */
class ForeignClientInputsIntegrationTests extends NatsIntegrationTestSupport {

	private static final long SEED = 20261123L;

	private static final String SUBJECT = "agents.marketing.tasks.blog-post";

	private static final String DEAD_LETTER_SUBJECT = "deadletter.TASKS.worker";

	private static final String[] NON_ASCII = { "tâche", "Café", "日本語", "\u200Fשלום\u200F", "emoji 🚀", "naïve é" };

	private static final String[] ASCII_ODD = { "a.b.c", "a*b", "a>b", "a b c", " leading", "x.>.*" };

	private static final String[] CONTROL = { "a\u0000b", "a\tb", "a\u0001b", "a\u007Fb" };

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.consumers.worker.ack-wait", "2s")
			.with("exactlyonce.consumers.worker.max-deliver", "3");
	}

	@Test
	void everyInputFromAnotherClientEndsInExactlyOneRecordedOutcome() throws Exception {
		Instance instance = this.instances.start("a");
		List<Input> inputs = inputs(new Random(SEED), 39);
		try (RawNatsPublisher raw = new RawNatsPublisher(this.nats.url())) {
			for (Input input : inputs) {
				raw.publish(SUBJECT, input.headers(), input.body());
			}
			raw.flush();
		}
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			await().atMost(Duration.ofSeconds(90))
				.until(() -> probe.stream("TASKS").getStreamState().getMsgCount() == 0 && probe.drained("TASKS", "worker")
						&& this.instances.ledger().executions().size()
								+ probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT).size() >= inputs.size());
			assertThat(probe.stream("TASKS").getStreamState().getLastSequence()).isEqualTo(inputs.size());
			List<MessageInfo> deadLetters = probe.messages("DEAD_LETTERS", DEAD_LETTER_SUBJECT);
			int processed = 0;
			for (int i = 0; i < inputs.size(); i++) {
				Input input = inputs.get(i);
				String sequence = Integer.toString(i + 1);
				long executions = this.instances.ledger().executionsOf(input.taskId());
				long parked = deadLetters.stream()
					.filter((d) -> sequence.equals(d.getHeaders().getFirst("Exactly-Once-Stream-Sequence")))
					.count();
				assertThat(executions + parked).as("outcomes of input %d (%s)", i, input.description()).isEqualTo(1);
				processed += (int) executions;
				if (input.expected() != Expected.EITHER) {
					assertThat(executions == 1 ? Expected.PROCESSED : Expected.DEAD_LETTERED)
						.as("outcome of input %d (%s)", i, input.description())
						.isEqualTo(input.expected());
				}
			}
			instance.bean(ExactlyOncePublisher.class).publish(SUBJECT, TaskAssignment.of("t-after"), "t-after");
			await().atMost(Duration.ofSeconds(20))
				.until(() -> this.instances.ledger().executionsOf("t-after") == 1 && probe.drained("TASKS", "worker"));
			assertThat(this.instances.ledger().executions()).as("no other execution").hasSize(processed + 1);
		}
	}

	private static List<Input> inputs(Random random, int count) {
		List<Input> inputs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String taskId = "fz-" + i;
			String id = taskId + "-" + random.nextInt(1000);
			byte[] task = task(taskId);
			inputs.add(switch (i % 13) {
				case 0 -> new Input("plain", taskId, RawNatsPublisher.headers("Nats-Msg-Id", id), task, Expected.PROCESSED);
				case 1 -> new Input("UTF-8 message id", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id + pick(random, NON_ASCII)), task,
						Expected.DEAD_LETTERED);
				case 2 -> new Input("UTF-8 header value", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id, "X-Title", pick(random, NON_ASCII)), task,
						Expected.DEAD_LETTERED);
				case 3 -> new Input(". * > and spaces in the id", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id + pick(random, ASCII_ODD)), task, Expected.PROCESSED);
				case 4 -> new Input("control characters in the id", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id + pick(random, CONTROL)), task, Expected.PROCESSED);
				case 5 -> new Input("1000-character id", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id + "-" + "k".repeat(1000)), task, Expected.PROCESSED);
				case 6 -> new Input("20 KB of headers", taskId, hugeHeaders(id, random), task, Expected.PROCESSED);
				case 7 -> new Input("invalid UTF-8 body", taskId, RawNatsPublisher.headers("Nats-Msg-Id", id),
						invalidUtf8(random), Expected.DEAD_LETTERED);
				case 8 -> new Input("3000-deep JSON", taskId, RawNatsPublisher.headers("Nats-Msg-Id", id),
						deepJson(taskId, 3000), Expected.DEAD_LETTERED);
				case 9 -> new Input("no message id", taskId, RawNatsPublisher.headers("X-Other", id), task,
						Expected.DEAD_LETTERED);
				case 10 -> new Input("newline in a header value", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id, "X-Note", "line1\nline2"), task, Expected.EITHER);
				case 11 -> new Input("UTF-8 task id in the body", taskId, RawNatsPublisher.headers("Nats-Msg-Id", id),
						task(taskId, pick(random, NON_ASCII)), Expected.PROCESSED);
				default -> new Input("UTF-8 header name", taskId,
						RawNatsPublisher.headers("Nats-Msg-Id", id, "X-" + pick(random, NON_ASCII).replace(' ', '_'), "v"),
						task, Expected.DEAD_LETTERED);
			});
		}
		return inputs;
	}

	private static byte[] task(String taskId) {
		return task(taskId, "");
	}

	private static byte[] task(String taskId, String title) {
		return ("{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\",\"payload\":{\"title\":\""
				+ title + "\"}}")
			.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] hugeHeaders(String id, Random random) {
		List<String> namesAndValues = new ArrayList<>(List.of("Nats-Msg-Id", id));
		for (int i = 0; i < 40; i++) {
			namesAndValues.add("X-Pad-" + i);
			namesAndValues.add(String.format("%016x", random.nextLong()).repeat(32).substring(0, 500));
		}
		return RawNatsPublisher.headers(namesAndValues.toArray(String[]::new));
	}

	private static byte[] invalidUtf8(Random random) {
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		body.writeBytes("{\"taskId\":\"".getBytes(StandardCharsets.US_ASCII));
		for (int i = 0; i < 16; i++) {
			body.write(0x80 + random.nextInt(0x40));
		}
		body.write(0xC3);
		body.write(0x28);
		return body.toByteArray();
	}

	private static byte[] deepJson(String taskId, int depth) {
		return ("{\"taskId\":\"" + taskId + "\",\"payload\":" + "[".repeat(depth) + "]".repeat(depth) + "}")
			.getBytes(StandardCharsets.UTF_8);
	}

	private static String pick(Random random, String[] choices) {
		return choices[random.nextInt(choices.length)];
	}

	private enum Expected {

		PROCESSED, DEAD_LETTERED, EITHER

	}

	private record Input(String description, String taskId, byte[] headers, byte[] body, Expected expected) {
	}

}
