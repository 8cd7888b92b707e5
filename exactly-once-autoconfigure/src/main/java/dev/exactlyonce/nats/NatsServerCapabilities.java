package dev.exactlyonce.nats;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import io.nats.client.Connection;
import io.nats.client.api.ServerInfo;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The version of the nats-server a connection reached and the {@link ServerFeature features}
 * newer than 2.9 it offers, read from the server's {@code INFO}. The starter needs nothing newer
 * than 2.9 and uses none of these features (docs/compatibility.md); this makes that visible in
 * the start-up log and to the application. A server that runs in a cluster and is older than
 * {@value #SAFE_CLUSTER_VERSION} is also warned about: replicated WorkQueue streams on such
 * servers lost acknowledged tasks in the fault suite when a node was killed and restarted.
 */
public final class NatsServerCapabilities {

	/** The oldest nats-server release whose clustered streams the starter's guarantees rely on. */
	public static final String SAFE_CLUSTER_VERSION = "2.10.19";

	private static final Log logger = LogFactory.getLog(NatsServerCapabilities.class);

	private final String version;

	private final Set<ServerFeature> offered;

	private final String cluster;

	private final boolean olderThanSafeCluster;

	private NatsServerCapabilities(String version, Set<ServerFeature> offered, String cluster,
			boolean olderThanSafeCluster) {
		this.version = version;
		this.offered = Collections.unmodifiableSet(offered);
		this.cluster = cluster;
		this.olderThanSafeCluster = olderThanSafeCluster;
	}

	/**
	 * The capabilities of the server described by an {@code INFO}.
	 * @param info the server's {@code INFO} ({@link Connection#getServerInfo()})
	 * @return the capabilities; none and an unknown version when the {@code INFO} has no version
	 */
	public static NatsServerCapabilities of(ServerInfo info) {
		String version = (info != null) ? info.getVersion() : null;
		if (version == null || version.isBlank()) {
			return new NatsServerCapabilities(null, EnumSet.noneOf(ServerFeature.class), null, false);
		}
		Set<ServerFeature> offered = EnumSet.noneOf(ServerFeature.class);
		Arrays.stream(ServerFeature.values())
			.filter((feature) -> info.isSameOrNewerThanVersion(feature.since() + ".0"))
			.forEach(offered::add);
		String cluster = (info.getCluster() != null && !info.getCluster().isBlank()) ? info.getCluster() : null;
		return new NatsServerCapabilities(version, offered, cluster,
				info.isOlderThanVersion(SAFE_CLUSTER_VERSION));
	}

	/**
	 * Reads the capabilities of the server a connection reached and logs them once, at INFO.
	 * @param connection the starter's NATS connection
	 * @return the capabilities
	 */
	public static NatsServerCapabilities detect(Connection connection) {
		NatsServerCapabilities capabilities = of(connection.getServerInfo());
		String url = CredentialRedactor.withoutUserInfo(String.valueOf(connection.getConnectedUrl()));
		logger.info(capabilities.summary(url));
		if (capabilities.isUnsafeCluster()) {
			logger.warn(capabilities.unsafeClusterWarning());
		}
		return capabilities;
	}

	/**
	 * The server's version, as its {@code INFO} gave it.
	 * @return e.g. {@code 2.9.10}; {@code null} when the connection had no {@code INFO} yet
	 */
	public String version() {
		return this.version;
	}

	/**
	 * The features newer than 2.9 the server offers (all unused by the starter).
	 * @return the features, in release order
	 */
	public Set<ServerFeature> offered() {
		return this.offered;
	}

	/**
	 * Whether the server runs in a cluster and is older than {@value #SAFE_CLUSTER_VERSION}.
	 * @return {@code true} when replicated streams on it are known to lose messages
	 */
	public boolean isUnsafeCluster() {
		return this.cluster != null && this.olderThanSafeCluster;
	}

	private String unsafeClusterWarning() {
		return "nats-server " + this.version + " runs in cluster '" + this.cluster + "': replicated (R3) WorkQueue "
				+ "streams on nats-server before " + SAFE_CLUSTER_VERSION + " lost acknowledged messages when a node "
				+ "was killed and restarted (fault suite, docs/compatibility.md), which no idempotency store can "
				+ "bring back; upgrade the cluster to nats-server " + SAFE_CLUSTER_VERSION + " or newer";
	}

	private String summary(String url) {
		String name = (this.version != null) ? "nats-server " + this.version : "nats-server (version unknown)";
		String offers = this.offered.isEmpty()
				? "this server offers none of the newer features weighed in docs/compatibility.md"
				: "left unused by design (docs/compatibility.md): " + this.offered.stream()
					.map((feature) -> feature.description() + " (" + feature.since() + ")")
					.collect(Collectors.joining(", "));
		return name + " at " + url + ": the starter uses nothing newer than nats-server 2.9 (optional capabilities "
				+ "used: none); " + offers;
	}

}
