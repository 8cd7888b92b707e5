package dev.exactlyonce.provision;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Reconciles the streams and durable consumers declared under {@code exactlyonce.*} with the
 * server: creates what is missing, updates what differs, and fails start-up naming the property
 * when the server refuses the change (or, in {@code validate} mode, on any difference). Server
 * settings of a stream that no property declares and that do not stop processing are kept and
 * logged as warnings.
 */
public class JetStreamProvisioner {

	private static final Log logger = LogFactory.getLog(JetStreamProvisioner.class);

	private static final int STREAM_NOT_FOUND = 10059;

	private static final int CONSUMER_NOT_FOUND = 10014;

	private final JetStreamManagement management;

	private final ProvisioningMode mode;

	/**
	 * Creates the provisioner.
	 * @param management JetStream management of the connection
	 * @param mode the provisioning mode
	 */
	public JetStreamProvisioner(JetStreamManagement management, ProvisioningMode mode) {
		this.management = management;
		this.mode = mode;
	}

	/**
	 * Provisions the dead-letter stream (when declared), every declared stream, then every
	 * declared consumer.
	 * @param declarations the declarations
	 * @return the server's view of each declared consumer after provisioning, by durable name
	 */
	public Map<String, ConsumerInfo> provision(JetStreamDeclarations declarations) {
		if (declarations.deadLetterStream() != null) {
			provisionStream(declarations.deadLetterStream());
		}
		declarations.streams().forEach(this::provisionStream);
		Map<String, ConsumerInfo> consumers = new LinkedHashMap<>();
		declarations.consumers().forEach((consumer) -> consumers.put(consumer.name(), provisionConsumer(consumer)));
		return consumers;
	}

	/**
	 * Provisions one stream.
	 * @param stream the declaration
	 */
	public void provisionStream(StreamDeclaration stream) {
		String name = stream.name();
		StreamConfiguration declared = JetStreamConfigurations.stream(stream);
		try {
			StreamInfo info = findStream(name);
			if (info == null) {
				requireMayCreate("Stream '" + name + "' does not exist");
				this.management.addStream(declared);
				logger.info("Created stream '" + name + "' for subjects " + stream.subjects());
				return;
			}
			StreamConfiguration server = info.getConfiguration();
			ConfigurationDrift drift = ConfigurationDrift.of(declared, server);
			drift.warnings().forEach((warning) -> logger.warn("Stream '" + name + "' on the server: " + warning
					+ "; kept as it is"));
			if (!drift.isEmpty()) {
				if (server.getSealed()) {
					throw new ProvisioningException("Stream '" + name + "' is sealed on the server: it refuses every "
							+ "publish and cannot be unsealed (" + drift + "). Delete and recreate it on the server.",
							null);
				}
				if (server.getMirror() != null) {
					throw new ProvisioningException("Stream '" + name + "' is a mirror of '"
							+ server.getMirror().getSourceName() + "' on the server: it refuses publishes, and an update "
							+ "would promote it to a stream of its own (nats-server 2.12 and newer), cutting it off "
							+ "from its origin (" + drift + "). Promote it on the server yourself if that is what "
							+ "you want (a failover), or declare another stream.", null);
				}
				update("Stream '" + name + "'", drift,
						() -> this.management.updateStream(JetStreamConfigurations.streamUpdate(stream, server)));
			}
		}
		catch (IOException | JetStreamApiException ex) {
			throw new ProvisioningException("Could not provision stream '" + name + "' (exactlyonce.streams." + name
					+ "): " + ex.getMessage(), ex);
		}
	}

	/**
	 * Provisions one durable consumer.
	 * @param consumer the declaration
	 * @return the server's view of the consumer
	 */
	public ConsumerInfo provisionConsumer(ConsumerDeclaration consumer) {
		String name = consumer.name();
		ConsumerConfiguration declared = JetStreamConfigurations.consumer(consumer);
		String stream = consumer.stream();
		try {
			ConsumerInfo info = findConsumer(stream, name);
			if (info == null) {
				requireMayCreate("Consumer '" + name + "' on stream '" + stream + "' does not exist");
				ConsumerInfo created = this.management.createConsumer(stream, declared);
				logger.info("Created durable consumer '" + name + "' on stream '" + stream + "'");
				return created;
			}
			ConfigurationDrift drift = ConfigurationDrift.of(declared, info.getConsumerConfiguration());
			if (drift.isEmpty()) {
				return info;
			}
			update("Consumer '" + name + "' on stream '" + stream + "'", drift,
					() -> this.management.updateConsumer(stream, declared));
			return this.management.getConsumerInfo(stream, name);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == STREAM_NOT_FOUND) {
				throw new ProvisioningException("Consumer '" + name + "' reads stream '" + stream + "', which does not "
						+ "exist on the server and is not declared: declare it under exactlyonce.streams." + stream
						+ " (at least its subjects) or correct exactlyonce.consumers." + name + ".stream", ex);
			}
			throw consumerFailed(name, stream, ex);
		}
		catch (IOException ex) {
			throw consumerFailed(name, stream, ex);
		}
	}

	private static ProvisioningException consumerFailed(String name, String stream, Exception ex) {
		return new ProvisioningException("Could not provision consumer '" + name + "' on stream '" + stream
				+ "' (exactlyonce.consumers." + name + "): " + ex.getMessage(), ex);
	}

	private void update(String what, ConfigurationDrift drift, ServerCall call) throws IOException {
		if (this.mode != ProvisioningMode.CREATE_OR_UPDATE) {
			throw new ProvisioningException(what + " differs from its declaration: " + drift
					+ ". Change the properties to match, or set exactlyonce.provisioning.mode=create-or-update.", null);
		}
		try {
			call.run();
			logger.info(what + " updated: " + drift);
		}
		catch (JetStreamApiException ex) {
			throw new ProvisioningException(what + " differs from its declaration and the server refused the update ("
					+ ex.getMessage() + "): " + drift
					+ ". Change the properties to match the server, or delete and recreate it on the server.", ex);
		}
	}

	private void requireMayCreate(String problem) {
		if (this.mode != ProvisioningMode.CREATE_OR_UPDATE) {
			throw new ProvisioningException(problem + " and exactlyonce.provisioning.mode is " + this.mode
					+ ": create it on the server or set exactlyonce.provisioning.mode=create-or-update.", null);
		}
	}

	private StreamInfo findStream(String name) throws IOException, JetStreamApiException {
		try {
			return this.management.getStreamInfo(name);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == STREAM_NOT_FOUND) {
				return null;
			}
			throw ex;
		}
	}

	private ConsumerInfo findConsumer(String stream, String name) throws IOException, JetStreamApiException {
		try {
			return this.management.getConsumerInfo(stream, name);
		}
		catch (JetStreamApiException ex) {
			if (ex.getApiErrorCode() == CONSUMER_NOT_FOUND || ex.getApiErrorCode() == STREAM_NOT_FOUND) {
				return null;
			}
			throw ex;
		}
	}

	@FunctionalInterface
	private interface ServerCall {

		void run() throws IOException, JetStreamApiException;

	}

}
