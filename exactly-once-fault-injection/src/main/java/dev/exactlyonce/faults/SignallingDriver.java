package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plays the people who approve drafts in the durable waits' rows: lists the marketing consumer's
 * {@code WAITING} tasks through a live consumer's operations endpoint and sends each its
 * {@code approval} signal there ({@code POST .../tasks/{key}/signals/approval}), approving most and
 * rejecting every {@value #REJECT_EVERY}th task. A signal that was not answered (connection refused,
 * a timeout, 503 or another server error) is sent again on every later look with the SAME id, whether
 * or not the task is still listed (a signal whose answer was lost may have resumed it) and whether or
 * not the list could be read (so signals meet the outages), until it is taken; {@code DUPLICATE} is
 * then as good as {@code RESUMED}. Every answer is recorded, and how long a task was still listed
 * waiting after its signal was taken.
 */
final class SignallingDriver {

	/** The wait's and the signal's name in the sample's marketing agent. */
	static final String SIGNAL = "approval";

	/** Every task whose index is a multiple of this, minus one, is rejected. */
	static final int REJECT_EVERY = 5;

	private static final Pattern KEY = Pattern.compile("\"key\"\\s*:\\s*\"([^\"]+)\"");

	private static final Pattern OUTCOME = Pattern.compile("\"outcome\"\\s*:\\s*\"([A-Z_]+)\"");

	private static final Duration LOOK_INTERVAL = Duration.ofMillis(300);

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

	private final String consumer;

	private final String prefix;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final Map<String, Integer> ports = new HashMap<>();

	private final Map<String, String> taken = new TreeMap<>();

	private final Map<String, Integer> answers = new TreeMap<>();

	private final Map<String, String> refused = new TreeMap<>();

	private final Set<String> pending = new LinkedHashSet<>();

	private final Map<String, Long> takenAt = new HashMap<>();

	private final Map<String, Duration> waitingAfterTaken = new TreeMap<>();

	private long nextLook;

	private int lastWaiting;

	private int turn;

	SignallingDriver(String consumer, String prefix) {
		this.consumer = consumer;
		this.prefix = prefix;
	}

	/**
	 * The HTTP port of a consumer slot, the same for each of its JVMs (picked free the first time).
	 * @param slot the slot's name
	 * @return the port
	 */
	int port(String slot) {
		return this.ports.computeIfAbsent(slot, (name) -> freePort());
	}

	/**
	 * Lists the waiting tasks through one of the live consumers (in turn), then signals every task
	 * seen waiting whose signal was not taken or refused yet; at most once every {@link #LOOK_INTERVAL}.
	 * @param live the names of the slots whose JVM is started and ready
	 */
	void poll(List<String> live) {
		long now = System.nanoTime();
		if (live.isEmpty() || now < this.nextLook) {
			return;
		}
		this.nextLook = now + LOOK_INTERVAL.toNanos();
		int port = port(live.get(Math.floorMod(this.turn++, live.size())));
		try {
			List<String> waiting = waitingKeys(port);
			this.lastWaiting = waiting.size();
			waiting.stream().filter(this.takenAt::containsKey).forEach((key) -> this.waitingAfterTaken.merge(key,
					Duration.ofNanos(now - this.takenAt.get(key)), (a, b) -> (a.compareTo(b) >= 0) ? a : b));
			waiting.stream()
				.filter((key) -> !this.taken.containsKey(key) && !this.refused.containsKey(key))
				.forEach(this.pending::add);
		}
		catch (IOException | RuntimeException ex) {
			count("list failed: " + ex.getClass().getSimpleName());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		for (String key : List.copyOf(this.pending)) {
			if (!signal(port, key)) {
				return;
			}
		}
	}

	/** How many of the row's tasks the last look found waiting. */
	int lastWaiting() {
		return this.lastWaiting;
	}

	/**
	 * Whether the driver rejects this task (its index is {@code REJECT_EVERY - 1} modulo {@code REJECT_EVERY}).
	 * @param taskId the task
	 * @return whether its approval says {@code "approved":false}
	 */
	boolean rejects(String taskId) {
		return Integer.parseInt(taskId.substring(this.prefix.length() + 1)) % REJECT_EVERY == REJECT_EVERY - 1;
	}

	/** The tasks whose signal was taken ({@code RESUMED}, {@code BUFFERED} or {@code DUPLICATE}), with that answer. */
	Map<String, String> taken() {
		return Map.copyOf(this.taken);
	}

	/** The tasks whose signal was refused ({@code TOO_LATE}, {@code NO_SUCH_TASK}, a 4xx), with the answer. */
	Map<String, String> refused() {
		return Map.copyOf(this.refused);
	}

	/**
	 * The tasks a look listed {@code WAITING} after their signal was taken, each with the longest
	 * time from its first taken answer to the start of such a look.
	 */
	Map<String, Duration> waitingAfterTaken() {
		return Map.copyOf(this.waitingAfterTaken);
	}

	/** Every answer the endpoint (or the network) gave, counted: outcomes, HTTP statuses, exceptions. */
	Map<String, Integer> answers() {
		return Map.copyOf(this.answers);
	}

	private List<String> waitingKeys(int port) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(HttpRequest
			.newBuilder(URI.create(base(port) + "?state=WAITING&size=500"))
			.timeout(REQUEST_TIMEOUT)
			.GET()
			.build(), HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			count("list HTTP " + response.statusCode());
			return List.of();
		}
		Matcher keys = KEY.matcher(response.body());
		Set<String> found = new LinkedHashSet<>();
		while (keys.find()) {
			if (keys.group(1).matches(Pattern.quote(this.prefix) + "-\\d+")) {
				found.add(keys.group(1));
			}
		}
		return List.copyOf(found);
	}

	/**
	 * Sends one task's signal with its stable id.
	 * @return whether the endpoint answered (so the next task may be signalled there)
	 */
	private boolean signal(int port, String key) {
		boolean approved = !rejects(key);
		String payload = "{\\\"approved\\\":" + approved + ",\\\"by\\\":\\\"fault-driver\\\",\\\"comment\\\":\\\""
				+ (approved ? "ship it" : "off-brand") + "\\\"}";
		String body = "{\"payload\":\"" + payload + "\",\"id\":\"" + key + "-approval\",\"reason\":\"fault row\"}";
		HttpResponse<String> response;
		try {
			response = this.http.send(HttpRequest.newBuilder(URI.create(base(port) + "/" + key + "/signals/" + SIGNAL))
				.timeout(REQUEST_TIMEOUT)
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			count("not answered: " + ex.getClass().getSimpleName());
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		Matcher outcome = OUTCOME.matcher(response.body());
		String answer = outcome.find() ? outcome.group(1) : "-";
		int status = response.statusCode();
		count("HTTP " + status + " " + answer);
		if (status == 200 && Set.of("RESUMED", "BUFFERED", "DUPLICATE").contains(answer)) {
			this.taken.put(key, answer);
			this.takenAt.put(key, System.nanoTime());
			this.pending.remove(key);
		}
		else if (status >= 400 && status < 500) {
			this.refused.put(key, "HTTP " + status + " " + answer);
			this.pending.remove(key);
		}
		return true;
	}

	private String base(int port) {
		return "http://127.0.0.1:" + port + "/actuator/exactlyonceops/" + this.consumer + "/tasks";
	}

	private void count(String answer) {
		this.answers.merge(answer, 1, Integer::sum);
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port for a consumer's operations endpoint", ex);
		}
	}

}
