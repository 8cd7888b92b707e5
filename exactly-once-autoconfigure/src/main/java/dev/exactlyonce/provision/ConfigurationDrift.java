package dev.exactlyonce.provision;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.SourceBase;
import io.nats.client.api.StreamConfiguration;

import dev.exactlyonce.config.DurationText;

/**
 * The differences between a declared stream or consumer and what the server has, named by the
 * property that declares each field, or by the server's name of a field the pipeline needs at a
 * fixed value.
 *
 * @param differences one line per differing field: {@code property: server X, declared Y};
 * provisioning updates them or fails start-up
 * @param warnings one line per server setting no property declares that does not stop
 * processing; kept as it is and reported
 */
public record ConfigurationDrift(List<String> differences, List<String> warnings) {

	/**
	 * The drift of a stream that weakens the guarantees it was declared for: a server {@code max_age}
	 * shorter than declared (tasks and dead letters removed before they may have run or been read)
	 * and a duplicate window shorter than declared (a publisher's retry, or the same task published
	 * again, after it is stored twice). Each line names the property and the fix.
	 * @param declared the declared configuration
	 * @param actual the server's configuration
	 * @return one line per weakened setting, empty when none
	 */
	public static List<String> weakened(StreamConfiguration declared, StreamConfiguration actual) {
		List<String> weakened = new ArrayList<>();
		String prefix = "exactlyonce.streams." + declared.getName() + ".";
		String fix = "; restore it (a start with exactlyonce.provisioning.mode=create-or-update does) and find who "
				+ "changed the stream";
		if (isShorter(actual.getMaxAge(), declared.getMaxAge())) {
			weakened.add(prefix + "max-age: server " + DurationText.of(actual.getMaxAge()) + ", declared " + describe(declared.getMaxAge())
					+ ": the stream removes tasks before they may have run" + fix);
		}
		if (isShorter(actual.getDuplicateWindow(), declared.getDuplicateWindow())) {
			weakened.add(prefix + "duplicate-window: server " + DurationText.of(actual.getDuplicateWindow()) + ", declared "
					+ DurationText.of(declared.getDuplicateWindow()) + ": a task published again (a publisher's retry) after it is stored "
					+ "twice" + fix);
		}
		return weakened;
	}

	/** Whether a server duration (zero: unlimited) is shorter than the declared one (zero: unlimited). */
	private static boolean isShorter(Duration actual, Duration declared) {
		boolean actualLimited = actual != null && !actual.isZero();
		boolean declaredLimited = declared != null && !declared.isZero();
		return actualLimited && (!declaredLimited || actual.compareTo(declared) < 0);
	}

	private static String describe(Duration duration) {
		return (duration == null || duration.isZero()) ? "unlimited" : DurationText.of(duration);
	}

	/**
	 * Compares a declared stream with the server's, including the settings no property declares
	 * that would stop the pipeline: a message size limit (a dead letter or task larger than it is
	 * refused and stays where it is), {@code no_ack} (every publish goes unanswered), a sealed
	 * stream or a mirror (both refuse publishes).
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
		if (normalize(actual.getMaxMsgSize()) != null) {
			diffs.add("max_msg_size: server " + actual.getMaxMsgSize() + ", declared unlimited (a larger task or "
					+ "dead letter is refused and stays on its stream)");
		}
		if (actual.getNoAck()) {
			diffs.add("no_ack: server true, declared false (publishes are stored but never confirmed)");
		}
		if (actual.getSealed()) {
			diffs.add("sealed: server true, declared false (the stream refuses every publish)");
		}
		if (actual.getMirror() != null) {
			diffs.add("mirror: server " + actual.getMirror().getSourceName() + ", declared none (a mirror refuses "
					+ "publishes)");
		}
		return new ConfigurationDrift(diffs, streamWarnings(actual));
	}

	private static List<String> streamWarnings(StreamConfiguration actual) {
		List<String> warnings = new ArrayList<>();
		if (actual.getDenyDelete()) {
			warnings.add("deny_delete: server true, declared false (a message that ran out of deliveries cannot "
					+ "be removed from a work-queue stream after it is dead-lettered)");
		}
		if (actual.getDenyPurge()) {
			warnings.add("deny_purge: server true, declared false (the starter never purges; operators cannot)");
		}
		if (actual.getAllowRollup()) {
			warnings.add("allow_rollup: server true, declared false (any publisher's Nats-Rollup header can "
					+ "remove stored tasks)");
		}
		if (!actual.getSources().isEmpty()) {
			warnings.add("sources: server " + actual.getSources().stream().map(SourceBase::getSourceName).toList()
					+ ", declared none (messages copied from those streams are processed like published ones)");
		}
		return warnings;
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
			diffs.add(prefix + "ack-wait: server " + DurationText.of(serverAckWait) + ", declared "
					+ DurationText.of(declared.getAckWait()));
		}
		return new ConfigurationDrift(diffs, List.of());
	}

	/**
	 * Whether nothing differs; warnings do not count.
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
			diffs.add(property + ": server " + text(actual) + ", declared " + text(declared));
		}
	}

	/** A value as a property would hold it: durations (also in a backoff list) as {@code 30s}, not {@code PT30S}. */
	private static Object text(Object value) {
		if (value instanceof Duration duration) {
			return DurationText.of(duration);
		}
		if (value instanceof List<?> list && list.stream().allMatch(Duration.class::isInstance)) {
			return list.stream().map((item) -> DurationText.of((Duration) item)).toList();
		}
		return value;
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
