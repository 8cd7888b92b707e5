package dev.exactlyonce.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.nats.client.JetStream;
import io.nats.client.impl.NatsMessage;
import io.nats.client.PublishOptions;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;

/**
 * Runs one scenario through the real starter: an application context with one
 * {@code @ExactlyOnceListener}, the messages published before its listener starts (or, under
 * load, at a steady rate after it started), timed from the listener's start to the last ack.
 */
final class ExactlyOnceRun {

	private ExactlyOnceRun() {
	}

	static RunResult run(String natsUrl, Map<String, String> storeProperties, String stream, String consumer,
			String subject, Scenario scenario, JetStream publisher) throws Exception {
		PipelineStopwatch stopwatch = new PipelineStopwatch(scenario.messages());
		List<String> properties = new ArrayList<>(List.of("exactlyonce.nats.servers=" + natsUrl,
				"exactlyonce.streams." + stream + ".subjects=" + subject,
				"exactlyonce.consumers." + consumer + ".stream=" + stream,
				"exactlyonce.consumers." + consumer + ".ack-wait=30s",
				"exactlyonce.consumers." + consumer + ".concurrency=" + scenario.concurrency(),
				"exactlyonce.listener.auto-startup=false",
				"exactlyonce.listener.ack-mode=" + (scenario.consumer().syncAck() ? "sync" : "async"),
				"exactlyonce.listener.pipelined=" + scenario.consumer().pipelined(),
				"exactlyonce.dead-letter.stream=", "benchmark.consumer=" + consumer,
				"benchmark.work-millis=" + scenario.workMillis(), "spring.main.banner-mode=off",
				"logging.level.root=WARN", "spring.cloud.gcp.core.enabled=false",
				"spring.cloud.gcp.firestore.enabled=false"));
		storeProperties.forEach((name, value) -> properties.add(name + "=" + value));
		if (!storeProperties.containsKey("spring.datasource.url")) {
			// the JDBC store's run has a database; the others have none to configure a DataSource for
			properties.add("spring.autoconfigure.exclude="
					+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(BenchmarkApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.initializers((ctx) -> ctx.getBeanFactory().registerSingleton("pipelineStopwatch", stopwatch))
			.run()) {
			if (scenario.offeredRate() == 0) {
				publish(publisher, subject, scenario.messages());
			}
			// started before the timed window and stopped after it: its start and its file are not in the figures
			FlightRecording recording = FlightRecording.start();
			long started = System.nanoTime();
			long cpu = ProcessCpu.nanos();
			long serverCpu = ServerCpu.nanos();
			ThreadCpu threadCpu = new ThreadCpu();
			context.getBean(ExactlyOnceListenerRegistry.class).start();
			if (scenario.offeredRate() > 0) {
				new PacedPublisher(publisher, stopwatch.publishToAck()).publish(subject, scenario.messages(), scenario.offeredRate());
			}
			if (!stopwatch.acked().await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException(scenario.label() + " did not finish");
			}
			double seconds = (System.nanoTime() - started) / 1e9;
			double cpuPerMessage = ProcessCpu.microsPerMessageSince(cpu, scenario.messages());
			double serverCpuPerMessage = ServerCpu.microsPerMessageSince(serverCpu, scenario.messages());
			threadCpu.print(scenario.label(), scenario.messages());
			recording.stop(scenario.label());
			return new RunResult(scenario.messages() / seconds, stopwatch.total(), stopwatch.segments(), cpuPerMessage,
					serverCpuPerMessage);
		}
	}

	static void publish(JetStream publisher, String subject, int messages) throws Exception {
		byte[] payload = "{\"task\":\"benchmark\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
		for (int i = 0; i < messages; i++) {
			publisher.publish(NatsMessage.builder().subject(subject).data(payload).build(),
					PublishOptions.builder().messageId(subject + "-" + i).build());
		}
	}

}
