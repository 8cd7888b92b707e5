package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;

/**
 * The publisher JVM of the fault suite (the "CEO agent" without HTTP): publishes tasks
 * {@code <prefix>-<i>} for {@code i} in {@code [from, count)} on the sample's subject, each with
 * its task id as {@code Nats-Msg-Id}, retrying every failed publish with the same id until the
 * stream confirms it. Prints {@code ack <i> <seq> <duplicate> <stream>} per confirmation and {@code done}
 * at the end; the driver kills it with {@code -9} mid-batch and starts it again a few tasks back.
 * <p>
 * Arguments: {@code <servers> <prefix> <from> <count> <pause-millis> [<copies> <copy-gap-millis> [campaigns|tasks [<lanes>]]]}:
 * with copies, each task is published that many times, {@code copy-gap-millis} apart (longer than the
 * stream's duplicate window, so that every copy is stored: a client retrying with the same id
 * after the window); with {@code campaigns}, each task is a campaign of the sample's CEO agent
 * ({@value #CAMPAIGN_SUBJECT}, {@code {"campaignId":"<id>","topic":...}}, message id the campaign id).
 * With {@code <lanes>} above 0, each task's payload also names its lane,
 * {@code "lane":"k<i % lanes>"}: the key of the limit the consumers run under in the limits' rows.
 */
public final class TaskPublisher {

	static final String SUBJECT = "agents.marketing.tasks.blog-post";

	static final String STREAM = "TASKS";

	/** Where the sample's CEO agent takes its campaigns. */
	static final String CAMPAIGN_SUBJECT = "agents.ceo.tasks.campaign";

	/** The last argument that makes every task a campaign. */
	static final String CAMPAIGNS = "campaigns";

	private TaskPublisher() {
	}

	public static void main(String[] args) throws Exception {
		String[] servers = args[0].split(",");
		String prefix = args[1];
		int from = Integer.parseInt(args[2]);
		int count = Integer.parseInt(args[3]);
		long pause = Long.parseLong(args[4]);
		int copies = (args.length > 5) ? Integer.parseInt(args[5]) : 1;
		long copyGap = (args.length > 6) ? Long.parseLong(args[6]) : 0;
		boolean campaigns = (args.length > 7) && args[7].equals(CAMPAIGNS);
		int lanes = (args.length > 8) ? Integer.parseInt(args[8]) : 0;
		Connection connection = connect(servers);
		JetStream jetStream = connection.jetStream(JetStreamOptions.builder()
			.requestTimeout(Duration.ofSeconds(2))
			.build());
		for (int i = from; i < count; i++) {
			String taskId = taskId(prefix, i);
			for (int copy = 0; copy < copies; copy++) {
				if (copy > 0) {
					Thread.sleep(copyGap);
				}
				PublishAck ack = publish(jetStream, taskId, i, campaigns, lanes);
				System.out.println("ack " + i + " " + ack.getSeqno() + " " + ack.isDuplicate() + " " + ack.getStream());
				System.out.flush();
			}
			if (pause > 0) {
				Thread.sleep(pause);
			}
		}
		System.out.println("done");
		System.out.flush();
		connection.close();
	}

	static String taskId(String prefix, int index) {
		return prefix + "-" + index;
	}

	/** The lane of task {@code index} when tasks are spread over {@code lanes} limit keys. */
	static String lane(int index, int lanes) {
		return "k" + (index % lanes);
	}

	private static PublishAck publish(JetStream jetStream, String taskId, int index, boolean campaign, int lanes)
			throws InterruptedException {
		String lane = (lanes > 0) ? ",\"lane\":\"" + lane(index, lanes) + "\"" : "";
		String json = campaign ? "{\"campaignId\":\"" + taskId + "\",\"topic\":\"launch " + index + "\"}"
				: "{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\","
						+ "\"payload\":{\"n\":" + index + lane + "}}";
		NatsMessage message = NatsMessage.builder()
			.subject(campaign ? CAMPAIGN_SUBJECT : SUBJECT)
			.data(json.getBytes(StandardCharsets.UTF_8))
			.build();
		// No expected-stream header, like the starter's own publisher: dead letters copy the original headers
		// and a stored Nats-Expected-Stream: TASKS makes the DEAD_LETTERS stream refuse them (docs/fault-injection.md).
		PublishOptions options = PublishOptions.builder().messageId(taskId).build();
		while (true) {
			try {
				return jetStream.publish(message, options);
			}
			catch (IOException | JetStreamApiException | IllegalStateException ex) {
				System.out.println("retry " + index + " " + ex.getClass().getSimpleName());
				System.out.flush();
				Thread.sleep(200);
			}
		}
	}

	private static Connection connect(String[] servers) throws InterruptedException {
		Options options = new Options.Builder().servers(servers)
			.connectionName("fault-publisher")
			.maxReconnects(-1)
			.reconnectWait(Duration.ofMillis(250))
			.connectionTimeout(Duration.ofSeconds(2))
			.errorListener(new QuietErrors())
			.build();
		while (true) {
			try {
				return Nats.connect(options);
			}
			catch (IOException ex) {
				Thread.sleep(250);
			}
		}
	}

}
