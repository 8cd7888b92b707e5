package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.nats.client.Connection;
import io.nats.client.Nats;

import dev.exactlyonce.test.FreePorts;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.ServerProcess;

/**
 * A JetStream cluster of nats-server processes on loopback, each with its own store directory and
 * route port, routed to the others; started and waited for until JetStream answers.
 */
final class NatsCluster implements AutoCloseable {

	private final List<NatsServerProcess> nodes;

	private NatsCluster(List<NatsServerProcess> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Starts the nodes and waits until the cluster has elected a JetStream leader.
	 * @param size the number of nodes
	 * @return the running cluster
	 * @throws Exception when it does not come up within a minute
	 */
	static NatsCluster start(int size) throws Exception {
		List<Integer> routePorts = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			routePorts.add(FreePorts.next());
		}
		List<NatsServerProcess> nodes = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			int own = routePorts.get(i);
			String routes = routePorts.stream()
				.filter((port) -> port != own)
				.map((port) -> "nats-route://127.0.0.1:" + port)
				.collect(Collectors.joining(", "));
			nodes.add(NatsServerProcess.withConfiguration("server_name: peers-" + i + "\ncluster {\n  name: peers\n"
					+ "  listen: 127.0.0.1:" + own + "\n  routes: [" + routes + "]\n}\n"));
		}
		NatsCluster cluster = new NatsCluster(nodes);
		try {
			nodes.forEach(NatsServerProcess::start);
			cluster.awaitJetStream();
			return cluster;
		}
		catch (Exception | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	private void awaitJetStream() throws Exception {
		long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
		try (Connection connection = Nats.connect(urls())) {
			while (true) {
				try {
					connection.jetStreamManagement().getAccountStatistics();
					return;
				}
				catch (Exception ex) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException("The " + this.nodes.size() + "-node cluster did not elect a "
								+ "JetStream leader within a minute; see the nodes' logs in " + this.nodes.get(0).directory(), ex);
					}
					Thread.sleep(200);
				}
			}
		}
	}

	String urls() {
		return this.nodes.stream().map(NatsServerProcess::url).collect(Collectors.joining(","));
	}

	List<ServerProcess> nodes() {
		return List.copyOf(this.nodes);
	}

	@Override
	public void close() {
		this.nodes.forEach(NatsServerProcess::close);
	}

}
