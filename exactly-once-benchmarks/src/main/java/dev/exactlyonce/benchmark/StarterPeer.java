package dev.exactlyonce.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.PublishOptions;
import io.nats.client.impl.NatsMessage;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.test.ServerProcess;
import dev.exactlyonce.waits.ExactlyOnceSignals;

/**
 * The exactly-once starter on one store: each task a JetStream message (handed over by a publish
 * the server acknowledged), run by an {@code @ExactlyOnceListener} of three {@code context.step}s
 * at the row's concurrency; the starter's defaults otherwise (sync acks, no pipelining).
 *
 * @param label the row's name
 * @param natsUrls the nats-server URLs, comma-separated
 * @param replicas replicas of the task stream and the NATS KV bucket
 * @param storeProperties the store's properties
 * @param servers every server the row uses (nats-server and the store's)
 * @param database the PostgreSQL database of the JDBC store, else {@code null}
 */
record StarterPeer(String label, String natsUrls, int replicas, Map<String, String> storeProperties,
		List<ServerProcess> servers, String database) implements PeerSystem {

	@Override
	public List<String> workerArguments() {
		List<String> arguments = new ArrayList<>(List.of("starter", this.natsUrls, Integer.toString(this.replicas)));
		this.storeProperties.forEach((name, value) -> arguments.add(name + "=" + value));
		return arguments;
	}

	@Override
	public Workers start(String scenario, int concurrency, int workMillis,
			AtomicReference<TaskCompletions> completions) throws Exception {
		String stream = "PEERS_" + scenario.replace('-', '_').toUpperCase(java.util.Locale.ROOT);
		String consumer = "peers-" + scenario;
		String subject = "peers." + scenario;
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + this.natsUrls,
				"exactlyonce.streams." + stream + ".subjects=" + subject,
				"exactlyonce.streams." + stream + ".replicas=" + this.replicas,
				"exactlyonce.store.nats-kv.replicas=" + this.replicas,
				"exactlyonce.consumers." + consumer + ".stream=" + stream,
				"exactlyonce.consumers." + consumer + ".concurrency=" + concurrency, "exactlyonce.dead-letter.stream=",
				// one id for the JVMs of one scenario, as DBOS's executor id: a crash's restart takes over its tasks
				"exactlyonce.instance-id=peers-" + scenario, "exactlyonce.takeover.enabled=true", "benchmark.consumer=" + consumer, "benchmark.work-millis=" + workMillis, "spring.main.banner-mode=off",
				"logging.level.root=WARN", "spring.cloud.gcp.core.enabled=false",
				"spring.cloud.gcp.firestore.enabled=false"));
		this.storeProperties.forEach((name, value) -> properties.add(name + "=" + value));
		if (!this.storeProperties.containsKey("spring.datasource.url")) {
			properties.add("spring.autoconfigure.exclude="
					+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		}
		ConfigurableApplicationContext context = new SpringApplicationBuilder(PeerTaskApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("peerCompletions", completions))
			.run();
		Connection connection = Nats.connect(this.natsUrls);
		JetStream jetStream = connection.jetStream();
		return new Workers() {

			@Override
			public void handOver(String taskId) throws Exception {
				jetStream.publish(NatsMessage.builder()
					.subject(subject)
					.data(taskId.getBytes(StandardCharsets.UTF_8))
					.build(), PublishOptions.builder().messageId(taskId).build());
			}

			@Override
			public void signal(String taskId) {
				context.getBean(ExactlyOnceSignals.class).signal(consumer, taskId, PeerTask.SIGNAL, "ok", "s-" + taskId);
			}

			@Override
			public void close() throws InterruptedException {
				context.close();
				connection.close();
			}

		};
	}

}
