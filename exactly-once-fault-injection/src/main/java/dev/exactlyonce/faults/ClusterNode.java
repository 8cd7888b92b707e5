package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.exactlyonce.test.FreePorts;
import dev.exactlyonce.test.ServerProcess;

/**
 * One node of a JetStream cluster on loopback: its own client, route and monitoring ports and its
 * own store directory, configured through a file in that directory.
 */
final class ClusterNode extends ServerProcess {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	private final String serverName;

	private final int index;

	private final List<Integer> routePorts;

	private final int monitorPort = FreePorts.next();

	ClusterNode(String serverName, int index, List<Integer> routePorts) {
		super("nats-" + serverName);
		this.serverName = serverName;
		this.index = index;
		this.routePorts = routePorts;
	}

	@Override
	protected List<String> command() {
		Path config = directory().resolve("nats.conf");
		List<String> routes = new ArrayList<>();
		for (int i = 0; i < this.routePorts.size(); i++) {
			if (i != this.index) {
				routes.add("nats-route://127.0.0.1:" + this.routePorts.get(i));
			}
		}
		String text = "server_name: " + this.serverName + "\n" + "listen: 127.0.0.1:" + port() + "\n"
				+ "http: 127.0.0.1:" + this.monitorPort + "\n" + "jetstream { store_dir: \""
				+ directory().resolve("jetstream") + "\" }\n" + "cluster {\n  name: faults\n  listen: 127.0.0.1:"
				+ this.routePorts.get(this.index) + "\n  routes: [" + String.join(", ", routes) + "]\n}\n";
		try {
			Files.writeString(config, text);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return List.of(Binaries.natsServer(), "-c", config.toString());
	}

	String url() {
		return "nats://127.0.0.1:" + port();
	}

	String name() {
		return this.serverName;
	}

	/**
	 * The node's own view of its streams and consumers ({@code /jsz} with account, stream and consumer
	 * details): state, cluster leader and replicas, delivered and ack floor sequences.
	 * @return the JSON answer, or {@code null} when the node does not answer
	 */
	String jsz() {
		return get("/jsz?accounts=true&streams=true&consumers=true&config=true");
	}

	/**
	 * The node's own view of the JetStream meta group ({@code /jsz}).
	 * @return the view, or {@code null} when the node does not answer
	 */
	MetaView meta() {
		String jsz = get("/jsz");
		return (jsz != null) ? MetaView.parse(jsz) : null;
	}

	private String get(String pathAndQuery) {
		try {
			HttpResponse<String> response = http.send(
					HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.monitorPort + pathAndQuery))
						.timeout(Duration.ofSeconds(2))
						.build(),
					HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == 200) ? response.body() : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	/**
	 * Whether the node reports itself healthy ({@code /healthz}: JetStream enabled and current).
	 * @return {@code true} when it answers 200
	 */
	boolean healthy() {
		try {
			HttpResponse<Void> response = http.send(
					HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.monitorPort + "/healthz"))
						.timeout(Duration.ofSeconds(1))
						.build(),
					HttpResponse.BodyHandlers.discarding());
			return response.statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
