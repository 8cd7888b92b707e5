package dev.exactlyonce.faults;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.nats.client.Options;

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
	 * A 3-node cluster, started, with JetStream ready (a meta leader elected).
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

	/** Waits until JetStream answers account requests (after start or after a restart). */
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
		int port() {
			return this.nodes.get(0).port();
		}

		@Override
		public void close() {
			this.nodes.forEach(ClusterNode::close);
		}

	}

}
