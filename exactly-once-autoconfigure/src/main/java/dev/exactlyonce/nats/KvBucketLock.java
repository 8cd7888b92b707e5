package dev.exactlyonce.nats;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValueOptions;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.StreamConfiguration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

/**
 * Keeps a NATS KV bucket's stream closed to the messages that erase records their sender does not
 * name: a {@code Nats-Rollup: all} header on a write to any key erases every other key (subject
 * permissions cannot filter headers), a stream purge erases them all, a message delete erases one by
 * its sequence. jnats creates buckets with roll-ups allowed and purges permitted, so a bucket is
 * created through the stream API with {@code allow_rollup_hdrs=false}, {@code deny_purge} and
 * {@code deny_delete}; an existing bucket is checked at start-up, updated when provisioning may
 * change it and refused otherwise. None of the starter's own KV calls needs a roll-up or a purge
 * (a KV {@code delete} writes a marker, a plain message).
 */
public final class KvBucketLock {

	private static final Log logger = LogFactory.getLog(KvBucketLock.class);

	private final JetStreamManagement management;

	private final String bucket;

	private final String property;

	/**
	 * Creates the lock of one bucket.
	 * @param connection the NATS connection
	 * @param options the bucket's options (their request timeout is used)
	 * @param bucket the bucket's name
	 * @param property the property that names the bucket, for messages
	 * @throws IOException when the JetStream context cannot be made
	 */
	public KvBucketLock(Connection connection, KeyValueOptions options, String bucket, String property)
			throws IOException {
		this.management = connection.jetStreamManagement(options.getJetStreamOptions());
		this.bucket = bucket;
		this.property = property;
	}

	/**
	 * Creates the bucket with the given settings, closed to roll-ups, purges and message deletes.
	 * @param configuration the bucket's settings
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when the server refused, e.g. the bucket exists
	 */
	public void create(KeyValueConfiguration configuration) throws IOException, JetStreamApiException {
		this.management.addStream(closed(configuration.getBackingConfig()));
	}

	/**
	 * Makes sure the existing bucket is closed: updates its stream when {@code update} is true,
	 * otherwise fails naming each open setting and the fix.
	 * @param update whether the bucket may be changed ({@code exactlyonce.provisioning.mode=create-or-update})
	 * @throws ExactlyOnceConfigurationException when the bucket is open and may not or could not be closed
	 * @throws IOException when the server did not answer
	 * @throws JetStreamApiException when the server refused to describe the bucket
	 */
	public void enforce(boolean update) throws IOException, JetStreamApiException {
		StreamConfiguration stream = this.management.getStreamInfo(streamName()).getConfiguration();
		List<String> openings = openings(stream);
		if (openings.isEmpty()) {
			return;
		}
		String problem = "NATS KV bucket '" + this.bucket + "' (" + this.property + ") lets whoever may write one "
				+ "of its keys erase records it does not name: stream " + streamName() + " has " + String.join(", ", openings);
		if (!update) {
			throw new ExactlyOnceConfigurationException(problem + ", and exactlyonce.provisioning.mode does not "
					+ "change buckets", fix());
		}
		try {
			this.management.updateStream(closed(stream));
			logger.info("NATS KV bucket '" + this.bucket + "': closed stream " + streamName()
					+ " to roll-ups, purges and message deletes (was " + String.join(", ", openings) + ")");
		}
		catch (JetStreamApiException ex) {
			throw new ExactlyOnceConfigurationException(problem + ", and the server refused to change it: "
					+ ex.getMessage(), fix(), ex);
		}
	}

	/**
	 * The settings of a bucket's stream that let a writer erase records it does not name.
	 * @param stream the bucket's stream configuration
	 * @return one line per open setting, empty when the bucket is closed
	 */
	public static List<String> openings(StreamConfiguration stream) {
		List<String> openings = new ArrayList<>();
		if (stream.getAllowRollup()) {
			openings.add("allow_rollup_hdrs: true (a 'Nats-Rollup: all' header on any key erases every other record)");
		}
		if (!stream.getDenyPurge()) {
			openings.add("deny_purge: false (a stream purge erases every record)");
		}
		if (!stream.getDenyDelete()) {
			openings.add("deny_delete: false (a message delete erases a record by its sequence)");
		}
		return openings;
	}

	private String fix() {
		return "Start once with exactlyonce.provisioning.mode=create-or-update as a NATS user allowed to publish to "
				+ "\"$JS.API.STREAM.UPDATE." + streamName() + "\" (the provisioner, docs/security.md, Least privilege), "
				+ "or update stream " + streamName() + " yourself: allow_rollup_hdrs false, deny_purge true, "
				+ "deny_delete true (the records are kept)";
	}

	private String streamName() {
		return "KV_" + this.bucket;
	}

	private static StreamConfiguration closed(StreamConfiguration stream) {
		return StreamConfiguration.builder(stream).allowRollup(false).denyPurge(true).denyDelete(true).build();
	}

}
