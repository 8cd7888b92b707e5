package dev.exactlyonce.it;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;

/**
 * What an attempt that lost its claim leaves when it publishes its ticket after the waiting attempt's
 *: a copy of a task's latest ticket under another token, which replaces it
 * on the default ticket stream.
 */
final class StaleTicket {

	static final String STREAM = "EXACTLYONCE_WAIT_TICKETS";

	private StaleTicket() {
	}

	/** The subject of a task's tickets on the default stream. */
	static String subject(String storeKey) throws Exception {
		return "exactlyonce.waits." + HexFormat.of()
			.formatHex(MessageDigest.getInstance("SHA-256").digest(storeKey.getBytes(StandardCharsets.UTF_8)));
	}

	/**
	 * Publishes the stale copy.
	 * @return the waiting ticket it replaced
	 */
	static MessageInfo replace(String url, String storeKey) throws Exception {
		try (Connection connection = Nats.connect(url)) {
			JetStreamManagement streams = connection.jetStreamManagement();
			MessageInfo waiting = streams.getLastMessage(STREAM, subject(storeKey));
			Headers stale = new Headers();
			waiting.getHeaders().entrySet().forEach((header) -> stale.put(header.getKey(), header.getValue()));
			stale.put("Exactly-Once-Wait-Token", "token-of-an-attempt-that-lost-its-claim");
			stale.remove("Nats-Msg-Id");
			connection.jetStream()
				.publish(NatsMessage.builder().subject(subject(storeKey)).headers(stale).data(waiting.getData()).build(),
						PublishOptions.builder().messageId("stale-" + waiting.getSeq()).build());
			return waiting;
		}
	}

}
