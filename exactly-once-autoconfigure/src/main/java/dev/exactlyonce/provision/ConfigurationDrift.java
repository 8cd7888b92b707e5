package dev.exactlyonce.provision;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StreamConfiguration;

/**
 * The differences between a declared stream or consumer and what the server has, named by the
 * property that declares each field.
 *
 * @param differences one line per differing field: {@code property: server X, declared Y}
 */
public record ConfigurationDrift(List<String> differences) {

	/**
	 * Compares a declared stream with the server's.
	 * @param declared the declared configuration
	 * @param actual the server's configuration
	 * @return the drift, empty when they match
	 */
	public static ConfigurationDrift of(StreamConfiguration declared, StreamConfiguration actual) {
		List<String> diffs = new ArrayList<>();
		String prefix = "exactlyonce.streams." + declared.getName() + ".";
		compare(diffs, prefix + "subjects", new HashSet<>(actual.getSubjects()), new HashSet<>(declared.getSubjects()));
		compare(diffs, prefix + "retention", actual.getRetentionPolicy(), declared.getRetentionPolicy());
		compare(diffs, prefix + "storage", actual.getStorageType(), declared.getStorageType());
		compare(diffs, prefix + "replicas", actual.getReplicas(), declared.getReplicas());
		compare(diffs, prefix + "max-age", actual.getMaxAge(), declared.getMaxAge());
		compare(diffs, prefix + "duplicate-window", actual.getDuplicateWindow(), declared.getDuplicateWindow());
		compare(diffs, prefix + "max-msgs-per-subject", actual.getMaxMsgsPerSubject(), declared.getMaxMsgsPerSubject());
		compare(diffs, prefix + "max-msgs", actual.getMaxMsgs(), declared.getMaxMsgs());
		compare(diffs, prefix + "max-bytes", actual.getMaxBytes(), declared.getMaxBytes());
		compare(diffs, prefix + "discard", actual.getDiscardPolicy(), declared.getDiscardPolicy());
		compare(diffs, prefix + "discard-new-per-subject", actual.isDiscardNewPerSubject(),
				declared.isDiscardNewPerSubject());
		return new ConfigurationDrift(diffs);
	}

	/**
	 * Compares a declared consumer with the server's. With backoff set, the server reports
	 * {@code backoff[0]} as the ack wait, so that value also counts as a match.
	 * @param declared the declared configuration
	 * @param actual the server's configuration
	 * @return the drift, empty when they match
	 */
	public static ConfigurationDrift of(ConsumerConfiguration declared, ConsumerConfiguration actual) {
		List<String> diffs = new ArrayList<>();
		String prefix = "exactlyonce.consumers." + declared.getDurable() + ".";
		compare(diffs, prefix + "filter-subject", emptyToNull(actual.getFilterSubject()),
				emptyToNull(declared.getFilterSubject()));
		compare(diffs, prefix + "deliver-policy", actual.getDeliverPolicy(), declared.getDeliverPolicy());
		compare(diffs, "ack policy (always explicit)", actual.getAckPolicy(), declared.getAckPolicy());
		compare(diffs, prefix + "max-deliver", actual.getMaxDeliver(), declared.getMaxDeliver());
		compare(diffs, prefix + "max-ack-pending", actual.getMaxAckPending(), declared.getMaxAckPending());
		compare(diffs, prefix + "backoff", actual.getBackoff(), declared.getBackoff());
		Duration serverAckWait = actual.getAckWait();
		boolean ackWaitMatches = Objects.equals(serverAckWait, declared.getAckWait())
				|| (!declared.getBackoff().isEmpty() && Objects.equals(serverAckWait, declared.getBackoff().get(0)));
		if (!ackWaitMatches) {
			diffs.add(prefix + "ack-wait: server " + serverAckWait + ", declared " + declared.getAckWait());
		}
		return new ConfigurationDrift(diffs);
	}

	/**
	 * Whether nothing differs.
	 * @return {@code true} when declared and actual match
	 */
	public boolean isEmpty() {
		return this.differences.isEmpty();
	}

	@Override
	public String toString() {
		return String.join("; ", this.differences);
	}

	private static void compare(List<String> diffs, String property, Object actual, Object declared) {
		if (!Objects.equals(normalize(actual), normalize(declared))) {
			diffs.add(property + ": server " + actual + ", declared " + declared);
		}
	}

	/** jnats reports "unlimited" as -1 or 0 or null depending on the field. */
	private static Object normalize(Object value) {
		if (value instanceof Number number && number.longValue() <= 0) {
			return null;
		}
		if (value instanceof Duration duration && duration.isZero()) {
			return null;
		}
		return value;
	}

	private static String emptyToNull(String value) {
		return (value == null || value.isEmpty()) ? null : value;
	}

}
