package dev.exactlyonce.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.exactlyonce.test.TcpProxy;
import dev.exactlyonce.testapp.Ledger;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every message reaches its handler within the time it takes to pull it, never after its ack wait:
 * a message the server sends while the client ends a pull is kept and handed out on the next one.
 * The instance reaches its server over a link with some latency, so the client's end of a pull
 * comes before the server's; the test watches pull requests arrive at the server and publishes
 * one message just before each pull ends there.
 */
class DeliveryLatencyIntegrationTests extends NatsIntegrationTestSupport {

	private static final Duration ACK_WAIT = Duration.ofSeconds(4);

	private static final Duration ONE_WAY_DELAY = Duration.ofMillis(50);

	private static final int MESSAGES = 12;

	private static final Pattern EXPIRES = Pattern.compile("\"expires\":(\\d+)");

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.store.type", "memory")
			.with("exactlyonce.consumers.worker.ack-wait", ACK_WAIT.toSeconds() + "s")
			.with("exactlyonce.consumers.worker.pull-expiry", "1s")
			.with("exactlyonce.consumers.worker.concurrency", "4")
			.with("exactlyonce.consumers.worker.max-ack-pending", "20");
	}

	@AfterEach
	void stopTimer() {
		this.timer.shutdownNow();
	}

	@Test
	void messagesPublishedAsPullsEndAreHandledWithoutWaitingForTheirAckWait() throws Exception {
		try (TcpProxy link = new TcpProxy(this.nats.port());
				JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			link.delayRequests(ONE_WAY_DELAY);
			link.delayReplies(ONE_WAY_DELAY);
			Instance instance = this.instances.start("a", "exactlyonce.nats.servers=nats://127.0.0.1:" + link.port());
			JetStream jetStream = probe.connection().jetStream();
			Map<String, Long> publishedNanos = new ConcurrentHashMap<>();
			AtomicInteger next = new AtomicInteger();
			Dispatcher pulls = probe.connection().createDispatcher((pull) -> {
				Matcher expires = EXPIRES.matcher(new String(pull.getData(), StandardCharsets.UTF_8));
				int index = next.getAndIncrement();
				if (expires.find() && index < MESSAGES) {
					long publishIn = Long.parseLong(expires.group(1)) - ONE_WAY_DELAY.toNanos() / 2;
					this.timer.schedule(() -> publish(jetStream, "t-" + index, publishedNanos), publishIn,
							TimeUnit.NANOSECONDS);
				}
			});
			pulls.subscribe("$JS.API.CONSUMER.MSG.NEXT.TASKS.worker");
			Ledger ledger = this.instances.ledger();
			await().atMost(Duration.ofSeconds(30)).until(() -> publishedNanos.size() == MESSAGES);
			long lastPublished = publishedNanos.values().stream().mapToLong(Long::longValue).max().orElseThrow();
			await().atMost(ACK_WAIT.multipliedBy(2)).until(() -> ledger.executions().size() >= MESSAGES
					|| System.nanoTime() - lastPublished > ACK_WAIT.toNanos());
			Map<String, Duration> late = new TreeMap<>();
			publishedNanos.forEach((taskId, published) -> {
				Long started = ledger.firstStartNanos(taskId);
				Duration latency = Duration.ofNanos(((started != null) ? started : System.nanoTime()) - published);
				if (latency.compareTo(ACK_WAIT.dividedBy(2)) > 0) {
					late.put(taskId, latency);
				}
			});
			assertThat(late).as("messages that reached their handler later than half the ack wait (%s)",
					ACK_WAIT.dividedBy(2)).isEmpty();
			assertThat(ledger.executions()).hasSize(MESSAGES)
				.allSatisfy((execution) -> assertThat(execution.deliveryCount()).isEqualTo(1));
			instance.context().close();
		}
	}

	private static void publish(JetStream jetStream, String taskId, Map<String, Long> publishedNanos) {
		publishedNanos.put(taskId, System.nanoTime());
		try {
			jetStream.publish(NatsMessage.builder()
				.subject("agents.marketing.tasks.blog-post")
				.headers(new Headers().put("Nats-Msg-Id", taskId))
				.data(("{\"taskId\":\"" + taskId + "\",\"assignee\":\"marketing\",\"type\":\"blog-post\"}")
					.getBytes(StandardCharsets.UTF_8))
				.build());
		}
		catch (IOException | JetStreamApiException ex) {
			throw new IllegalStateException("Could not publish " + taskId, ex);
		}
	}

}
