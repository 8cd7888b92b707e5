package dev.exactlyonce.actuate;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.exactlyonce.audit.Subjects;
import dev.exactlyonce.nats.CredentialRedactor;
import dev.exactlyonce.nats.PermissionViolation;
import dev.exactlyonce.nats.PermissionViolations;
import dev.exactlyonce.provision.ConfigurationDrift;
import dev.exactlyonce.provision.ConsumerDeclaration;
import dev.exactlyonce.provision.JetStreamConfigurations;
import dev.exactlyonce.provision.JetStreamDeclarations;
import dev.exactlyonce.provision.StreamDeclaration;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.StoreUnavailableException;
import dev.exactlyonce.store.natskv.NatsKvBucketProvisioner;
import dev.exactlyonce.store.natskv.NatsKvBucketSpec;

/**
 * Health of exactly-once processing: the NATS connection and JetStream, every declared stream and
 * consumer (exists, configuration drift, backlog), the dead-letter stream, and the idempotency
 * store (reachable, latency). It is {@code DOWN} only for what stops processing: no connection,
 * no JetStream, a missing stream or consumer, an unreachable store, an idempotency bucket that
 * loses or refuses records. Stream and consumer drift, a missing dead-letter stream and the
 * in-memory store are reported as {@code warnings} while staying {@code UP}.
 */
public class ExactlyOnceHealthIndicator implements HealthIndicator {

	private static final String PROBE_KEY = "exactlyonce-health-probe";

	private static final int NOT_FOUND_STREAM = 10059;

	private static final int NOT_FOUND_CONSUMER = 10014;

	private final Connection connection;

	private final JetStreamDeclarations declarations;

	private final NatsKvBucketSpec idempotencyBucket;

	private final Duration requestTimeout;

	private final IdempotencyStore store;

	/**
	 * Creates the indicator.
	 * @param connection the NATS connection
	 * @param declarations the declared streams and consumers
	 * @param idempotencyBucket the idempotency bucket, checked when the store is the NATS KV store
	 * @param requestTimeout the timeout of JetStream API requests
	 * @param store the idempotency store
	 */
	public ExactlyOnceHealthIndicator(Connection connection, JetStreamDeclarations declarations,
			NatsKvBucketSpec idempotencyBucket, Duration requestTimeout, IdempotencyStore store) {
		this.connection = connection;
		this.declarations = declarations;
		this.idempotencyBucket = idempotencyBucket;
		this.requestTimeout = requestTimeout;
		this.store = store;
	}

	@Override
	public Health health() {
		Check check = new Check();
		Health.Builder builder = new Health.Builder();
		builder.withDetail("nats", nats(check));
		JetStreamManagement management = (check.down.isEmpty()) ? jetStream(check, builder) : null;
		if (management != null) {
			builder.withDetail("streams", streams(management, check));
			builder.withDetail("consumers", consumers(management, check));
		}
		builder.withDetail("store", store(check));
		if (!check.warnings.isEmpty()) {
			builder.withDetail("warnings", check.warnings);
		}
		if (!check.down.isEmpty()) {
			builder.withDetail("problems", check.down);
			return builder.down().build();
		}
		return builder.up().build();
	}

	private Map<String, Object> nats(Check check) {
		Map<String, Object> nats = new LinkedHashMap<>();
		Connection.Status status = this.connection.getStatus();
		nats.put("status", status.name());
		String url = this.connection.getConnectedUrl();
		if (url != null) {
			nats.put("server", CredentialRedactor.withoutUserInfo(url));
		}
		for (PermissionViolation refused : PermissionViolations.reportedOn(this.connection)) {
			boolean down = refused.isStartersOwn() || isDeadLetterSubject(refused.subject());
			(down ? check.down : check.warnings).add(refused.problem() + ": " + refused.action());
		}
		if (status != Connection.Status.CONNECTED) {
			check.down.add("NATS connection is " + status + ": no message can be received or acknowledged");
		}
		return nats;
	}

	/** A dead letter that cannot be published leaves a task that failed for good on its stream: an incident. */
	private boolean isDeadLetterSubject(String subject) {
		StreamDeclaration deadLetters = this.declarations.deadLetterStream();
		return deadLetters != null
				&& deadLetters.subjects().stream().anyMatch((filter) -> Subjects.matches(filter, subject));
	}

	private JetStreamManagement jetStream(Check check, Health.Builder builder) {
		Map<String, Object> jetStream = new LinkedHashMap<>();
		try {
			JetStreamManagement management = this.connection.jetStreamManagement();
			var statistics = management.getAccountStatistics();
			jetStream.put("available", true);
			jetStream.put("streams", statistics.getStreams());
			jetStream.put("consumers", statistics.getConsumers());
			builder.withDetail("jetStream", jetStream);
			return management;
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			jetStream.put("available", false);
			jetStream.put("error", ex.getMessage());
			builder.withDetail("jetStream", jetStream);
			check.down.add("JetStream is not available: " + ex.getMessage());
			return null;
		}
	}

	private Map<String, Object> streams(JetStreamManagement management, Check check) {
		Map<String, Object> streams = new LinkedHashMap<>();
		for (StreamDeclaration stream : this.declarations.streams()) {
			String name = stream.name();
			Map<String, Object> detail = new LinkedHashMap<>();
			StreamInfo info = streamInfo(management, name, detail, check, true);
			if (info != null) {
				detail.put("messages", info.getStreamState().getMsgCount());
				StreamConfiguration declared = JetStreamConfigurations.stream(stream);
				ConfigurationDrift drift = ConfigurationDrift.of(declared, info.getConfiguration());
				detail.put("drift", drift.differences());
				List<String> weakened = ConfigurationDrift.weakened(declared, info.getConfiguration());
				weakened.forEach((line) -> check.down.add("Stream '" + name + "' weakened: " + line));
				drift.differences()
					.stream()
					.filter((difference) -> weakened.stream()
						.noneMatch((line) -> line.startsWith(difference.substring(0, difference.indexOf(':') + 1))))
					.forEach((difference) -> check.warnings.add("Stream '" + name + "' drifted: " + difference));
				drift.warnings().forEach((warning) -> check.warnings.add("Stream '" + name + "': " + warning));
			}
			streams.put(name, detail);
		}
		StreamDeclaration deadLetterStream = this.declarations.deadLetterStream();
		String deadLetters = (deadLetterStream != null) ? deadLetterStream.name() : null;
		if (deadLetters != null && !streams.containsKey(deadLetters)) {
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("role", "dead-letter");
			StreamInfo info = streamInfo(management, deadLetters, detail, check, false);
			if (info != null) {
				detail.put("messages", info.getStreamState().getMsgCount());
			}
			streams.put(deadLetters, detail);
		}
		return streams;
	}

	private StreamInfo streamInfo(JetStreamManagement management, String name, Map<String, Object> detail, Check check,
			boolean required) {
		try {
			StreamInfo info = management.getStreamInfo(name);
			detail.put("exists", true);
			return info;
		}
		catch (JetStreamApiException ex) {
			boolean missing = ex.getApiErrorCode() == NOT_FOUND_STREAM;
			detail.put("exists", missing ? false : "unknown");
			detail.put("error", ex.getMessage());
			String problem = "Stream '" + name + "' " + (missing ? "does not exist" : "could not be read: " + ex.getMessage());
			if (required) {
				check.down.add(problem);
			}
			else {
				check.warnings.add(problem + ": dead letters cannot be stored, failing messages stay on their streams");
			}
			return null;
		}
		catch (IOException | RuntimeException ex) {
			detail.put("exists", "unknown");
			detail.put("error", ex.getMessage());
			check.down.add("Stream '" + name + "' could not be read: " + ex.getMessage());
			return null;
		}
	}

	private Map<String, Object> consumers(JetStreamManagement management, Check check) {
		Map<String, Object> consumers = new LinkedHashMap<>();
		for (ConsumerDeclaration consumer : this.declarations.consumers()) {
			String name = consumer.name();
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("stream", consumer.stream());
			try {
				ConsumerInfo info = management.getConsumerInfo(consumer.stream(), name);
				detail.put("exists", true);
				detail.put("pending", info.getNumPending());
				detail.put("ackPending", info.getNumAckPending());
				detail.put("redelivered", info.getRedelivered());
				List<String> drift = ConfigurationDrift.of(JetStreamConfigurations.consumer(consumer),
						info.getConsumerConfiguration()).differences();
				detail.put("drift", drift);
				drift.forEach((difference) -> check.warnings.add("Consumer '" + name + "' drifted: " + difference));
			}
			catch (JetStreamApiException ex) {
				boolean missing = ex.getApiErrorCode() == NOT_FOUND_CONSUMER || ex.getApiErrorCode() == NOT_FOUND_STREAM;
				detail.put("exists", missing ? false : "unknown");
				detail.put("error", ex.getMessage());
				check.down.add("Consumer '" + name + "' on stream '" + consumer.stream() + "' "
						+ (missing ? "does not exist: its listener receives nothing" : "could not be read: " + ex.getMessage()));
			}
			catch (IOException | RuntimeException ex) {
				detail.put("exists", "unknown");
				detail.put("error", ex.getMessage());
				check.down.add("Consumer '" + name + "' could not be read: " + ex.getMessage());
			}
			consumers.put(name, detail);
		}
		return consumers;
	}

	private Map<String, Object> store(Check check) {
		Map<String, Object> store = new LinkedHashMap<>();
		store.put("name", this.store.name());
		long started = System.nanoTime();
		try {
			this.store.find(PROBE_KEY);
			store.put("reachable", true);
		}
		catch (StoreUnavailableException | IllegalStateException ex) {
			store.put("reachable", false);
			store.put("error", ex.getMessage());
			check.down.add("Idempotency store '" + this.store.name() + "' is unreachable: every delivery is retried "
					+ "until it answers");
		}
		store.put("latencyMs", Duration.ofNanos(System.nanoTime() - started).toMillis());
		if ("nats-kv".equals(this.store.name())) {
			store.put("bucket", bucket(check));
		}
		if ("memory".equals(this.store.name())) {
			store.put("warning", "in-memory store: records are lost on restart");
			check.warnings.add("exactlyonce.store.type=memory: completed tasks can run again after a restart; "
					+ "use nats-kv, redis or firestore outside tests");
		}
		return store;
	}

	/**
	 * The idempotency bucket compared with what the store needs: a setting that loses or refuses
	 * records is a problem, as it is at start-up.
	 */
	private Map<String, Object> bucket(Check check) {
		String name = this.idempotencyBucket.name();
		Map<String, Object> bucket = new LinkedHashMap<>();
		bucket.put("name", name);
		try {
			ConfigurationDrift drift = new NatsKvBucketProvisioner(this.connection, this.requestTimeout)
				.drift(this.idempotencyBucket);
			bucket.put("drift", drift.differences());
			drift.differences().forEach((difference) -> check.down.add("Idempotency bucket '" + name
					+ "' cannot keep the records safely: " + difference));
			drift.warnings().forEach((warning) -> check.warnings.add("Idempotency bucket '" + name + "': "
					+ warning));
		}
		catch (IOException | JetStreamApiException | RuntimeException ex) {
			bucket.put("error", ex.getMessage());
		}
		return bucket;
	}

	private static final class Check {

		private final List<String> down = new ArrayList<>();

		private final List<String> warnings = new ArrayList<>();

	}

}
