package dev.exactlyonce.takeover;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

/**
 * Who this process is: the instance id it claims as ({@code exactlyonce.instance-id}), which a
 * restarted process of the same pod or host shares with its dead predecessor, and its incarnation,
 * drawn at random for every start, so that two processes with one instance id are still told apart.
 *
 * @param instanceId the instance id
 * @param incarnation this start's random incarnation
 */
public record InstanceIdentity(String instanceId, String incarnation) {

	private static final String SUBJECT_PREFIX = "exactlyonce.instance.";

	/**
	 * A new incarnation of an instance.
	 * @param instanceId the instance id
	 * @return its identity for this start
	 */
	public static InstanceIdentity start(String instanceId) {
		return new InstanceIdentity(instanceId, UUID.randomUUID().toString());
	}

	/**
	 * The bucket key of this incarnation's record: {@code <instance id, base64url>.<incarnation>}.
	 * @return the key
	 */
	public String key() {
		return keyPrefix() + this.incarnation;
	}

	/**
	 * The prefix every incarnation of this instance id has in its key.
	 * @return {@code <instance id, base64url>.}
	 */
	public String keyPrefix() {
		return Base64.getUrlEncoder().withoutPadding().encodeToString(this.instanceId.getBytes(StandardCharsets.UTF_8))
				+ ".";
	}

	/**
	 * The subject on which the incarnation with a bucket key answers while it lives.
	 * @param key the incarnation's bucket key
	 * @return {@code exactlyonce.instance.<key>}
	 */
	static String subjectOf(String key) {
		return SUBJECT_PREFIX + key;
	}

}
