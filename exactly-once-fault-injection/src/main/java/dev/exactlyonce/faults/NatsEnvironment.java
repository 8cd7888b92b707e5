package dev.exactlyonce.faults;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StreamConfiguration;

import dev.exactlyonce.test.NatsServerProcess;

/**
 * The NATS side of one row: a single {@code nats-server} or a 3-node JetStream cluster on
 * loopback, each node with its own store directory, killable and restartable on the same ports.
 */
abstract class NatsEnvironment implements AutoCloseable {

	/**
	 * A single server.
	 * @return the started environment
	 */
	static NatsEnvironment single() {
		return new Single(new NatsServerProcess());
	}

	/**
	 * A single server listening on every local address, so a consumer in another network namespace
	 * reaches it through its veth pair; {@link #urls()} are the loopback ones.
	 * @return the started environment
	 */
	static NatsEnvironment singleOnAllAddresses() {
		return new Single(NatsServerProcess.onAllAddresses());
	}

	/**
	 * The port of the (first) server, for a client that reaches it at another address.
	 * @return the port
	 */
	abstract int port();

	/**
	 * A 3-node cluster, started; {@link #awaitJetStream} waits until it can place replicated streams.
	 * @return the started environment
	 */
	static NatsEnvironment cluster() {
		return new Cluster();
	}

	/** The client URLs. */
	abstract List<String> urls();

	/** How many replicas streams and buckets should have. */
	abstract int replicas();

	/**
	 * A client connection that reconnects forever.
	 * @return the connection
	 * @throws IOException when no server can be reached
	 * @throws InterruptedException when interrupted
	 */
	Connection connect() throws IOException, InterruptedException {
		return Nats.connect(new Options.Builder().servers(urls().toArray(String[]::new))
			.connectionName("fault-driver")
			.maxReconnects(-1)
			.reconnectWait(Duration.ofMillis(250))
			.connectionTimeout(Duration.ofSeconds(2))
			.errorListener(new QuietErrors())
			.build());
	}

	/**
	 * Waits until JetStream answers account requests (after start or after a restart); on a cluster
	 * also until every node follows one meta leader that sees every other node current, and a
	 * 3-replica stream can be placed.
	 * @param connection a connection to the environment
	 * @param timeout the longest wait
	 * @throws IllegalStateException when that is not so within the timeout, saying what is missing
	 */
	void awaitJetStream(Connection connection, Duration timeout) {
		Waits.until("JetStream to answer on " + urls(), timeout, () -> {
			try {
				connection.jetStreamManagement().getAccountStatistics();
				return true;
			}
			catch (IOException | JetStreamApiException | IllegalStateException ex) {
				return false;
			}
		});
	}

	@Override
	public abstract void close();

	private static final class Single extends NatsEnvironment {

		private final NatsServerProcess server;

		Single(NatsServerProcess server) {
			this.server = server.start();
		}

		@Override
		int port() {
			return this.server.port();
		}

		@Override
		List<String> urls() {
			return List.of(this.server.url());
		}

		@Override
		int replicas() {
			return 1;
		}

		/** kill -9 and start again on the same port and store directory. */
		void restart() {
			this.server.restart();
		}

		@Override
		public void close() {
			this.server.close();
		}

	}

	/**
	 * Kills the single server and starts it again.
	 * @throws UnsupportedOperationException on a cluster
	 */
	void restartServer() {
		if (!(this instanceof Single single)) {
			throw new UnsupportedOperationException("restartServer() is for the single server");
		}
		single.restart();
	}

	/**
	 * The cluster's nodes.
	 * @return the nodes
	 * @throws UnsupportedOperationException on a single server
	 */
	List<ClusterNode> nodes() {
		if (!(this instanceof Cluster cluster)) {
			throw new UnsupportedOperationException("nodes() is for the cluster");
		}
		return cluster.nodes;
	}

	private static final class Cluster extends NatsEnvironment {

		private static final String PLACEMENT_PROBE = "CLUSTER_PLACEMENT_PROBE";

		private static final int NO_SUITABLE_PEERS = 10005;

		private final List<ClusterNode> nodes;

		Cluster() {
			List<Integer> routePorts = List.of(dev.exactlyonce.test.FreePorts.next(),
					dev.exactlyonce.test.FreePorts.next(), dev.exactlyonce.test.FreePorts.next());
			this.nodes = List.of(new ClusterNode("n1", 0, routePorts), new ClusterNode("n2", 1, routePorts),
					new ClusterNode("n3", 2, routePorts));
			this.nodes.forEach(ClusterNode::start);
		}

		@Override
		List<String> urls() {
			return this.nodes.stream().map(ClusterNode::url).toList();
		}

		@Override
		int replicas() {
			return 3;
		}

		@Override
		void awaitJetStream(Connection connection, Duration timeout) {
			long deadline = System.nanoTime() + timeout.toNanos();
			if (!Waits.within(timeout, () -> MetaView.missing(metaViews()) == null)) {
				throw new IllegalStateException("Timed out after " + timeout + " waiting for the 3-node cluster's meta "
						+ "leader and every peer current: " + MetaView.missing(metaViews()));
			}
			super.awaitJetStream(connection, left(deadline));
			awaitPlacement(connection, left(deadline));
		}

		private Map<String, MetaView> metaViews() {
			Map<String, MetaView> views = new LinkedHashMap<>();
			this.nodes.forEach((node) -> views.put(node.name(), node.meta()));
			return views;
		}

		/**
		 * Waits until the meta leader places a 3-replica stream: peers it lists as current can still
		 * lack the statistics placement needs, and it then refuses with 10005 ("no suitable peers").
		 * The probe stream is deleted at once.
		 */
		private void awaitPlacement(Connection connection, Duration timeout) {
			StreamConfiguration probe = StreamConfiguration.builder()
				.name(PLACEMENT_PROBE)
				.subjects(PLACEMENT_PROBE.toLowerCase(Locale.ROOT))
				.replicas(3)
				.build();
			String[] refused = { "no answer" };
			boolean placed = Waits.within(timeout, () -> {
				try {
					JetStreamManagement management = connection.jetStreamManagement();
					management.addStream(probe);
					management.deleteStream(PLACEMENT_PROBE);
					return true;
				}
				catch (JetStreamApiException ex) {
					if (ex.getApiErrorCode() != NO_SUITABLE_PEERS) {
						throw new IllegalStateException("Could not place the probe stream " + PLACEMENT_PROBE + ": "
								+ ex.getMessage(), ex);
					}
					refused[0] = ex.getMessage();
					return false;
				}
				catch (IOException | IllegalStateException ex) {
					refused[0] = ex.toString();
					return false;
				}
			});
			if (!placed) {
				String meta = MetaView.missing(metaViews());
				throw new IllegalStateException("Timed out after " + timeout + " waiting for the 3-node cluster to "
						+ "place a 3-replica stream (last answer: " + refused[0] + "); meta group: "
						+ ((meta != null) ? meta : "leader and every peer current"));
			}
		}

		private static Duration left(long deadline) {
			return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
		}

		@Override
		int port() {
			return this.nodes.get(0).port();
		}

		@Override
		public void close() {
			this.nodes.forEach(ClusterNode::close);
		}

	}

}
