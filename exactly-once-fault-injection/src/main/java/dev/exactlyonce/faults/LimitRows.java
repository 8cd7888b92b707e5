package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The limits' rows (issue 42): the marketing agent's listener runs under a limit
 * ({@code sample.limit}), its handler's starts and ends are counted from outside ({@link Holds}).
 * <ul>
 * <li>{@link FaultRow#LIMIT_KILL_HOLDERS}: {@code concurrency: }{@value #CONCURRENCY} per key, tasks
 * spread over {@value #LANES} keys, {@value #WORKERS} workers per consumer JVM (more than the keys may
 * use); {@code kill -9} of a consumer JVM while it holds a slot and another one runs, restarted at
 * once. Holds: never more than the limit at once per key.</li>
 * <li>{@link FaultRow#LIMIT_RATE_10MIN}: {@code rate: }{@value #RATE}{@code , per: 1m}, one key, tasks
 * published at three times the rate; half-way through the measured minutes every consumer JVM is
 * killed ({@code kill -9}) and restarted, at three quarters the nats-server. Holds: never more than
 * the rate's starts in a sliding minute (on the start lines' clock, less {@link #RATE_TOLERANCE}).</li>
 * </ul>
 */
final class LimitRows {

	/** The limit's name in {@code exactlyonce.limits}. */
	static final String LIMIT = "posts";

	/** Keys of the concurrency row's limit: task {@code i} is in lane {@code k<i % LANES>}. */
	static final int LANES = 3;

	/** Holders of one key at once in the concurrency row. */
	static final int CONCURRENCY = 2;

	/**
	 * The marketing consumer's workers per JVM in the concurrency row: more than all keys may use, so
	 * that even one live JVM runs into the limit.
	 */
	static final int WORKERS = 8;

	/**
	 * The marketing agent's model call in the concurrency row: a holder holds its slot for this and
	 * its commit, so the slots (not the JVMs) bound the throughput and the row lasts long enough for
	 * its kills.
	 */
	static final Duration HOLDER_WORK = Duration.ofSeconds(8);

	/**
	 * The lease in both rows: longer than a holder's work, so that the waiters are resumed by the
	 * holders giving back their slots, not by their tickets every lease (and longer than a
	 * nats-server restart in the rate row).
	 */
	static final Duration LEASE = Duration.ofSeconds(10);

	/**
	 * Starts per {@link #PER} in the rate row. Every waiter of a rate limit looks again when the next
	 * token frees, so a queue of Q costs about Q resumptions per token: at 60 a minute with three times
	 * that published the queue would reach 440, some 440 resumptions a second, more than two cores
	 * shared with other work were given (not measured); at 20 it peaks near 150, one token every 3 s.
	 */
	static final int RATE = 20;

	static final Duration PER = Duration.ofMinutes(1);

	/**
	 * How much earlier than its start line a start may have been taken: a start line is written after
	 * the token was spent (on the NATS server's clock, the same machine's), as the handler's first act.
	 * Two start lines can therefore be closer than their takes by up to this; a window of
	 * {@code PER - RATE_TOLERANCE} on the lines' clock must hold at most {@value #RATE} starts.
	 */
	static final Duration RATE_TOLERANCE = Duration.ofSeconds(1);

	/**
	 * Publishes in the concurrency row: a task every 1.3 s, a little more than its slots complete (6
	 * slots of about 8.5 s), so that the keys have waiters throughout and no long queue; 1,000 tasks
	 * take about 25 minutes, as long as 100 kills do when a JVM takes 25 s to start.
	 */
	private static final long KILL_ROW_PUBLISH_PAUSE_MILLIS = 1300;

	/** At most one kill per this, and only once a task completed since the last. */
	private static final Duration KILL_SPACING = Duration.ofSeconds(1);

	private final FaultRow row;

	private final Path directory;

	private final int planned;

	private final Random random;

	private final Log log;

	private final Map<String, Instant> kills = new LinkedHashMap<>();

	private final Set<ConsumerSlot> killed = new HashSet<>();

	private final Duration measured = Duration.ofMinutes(Long.getLong("faults.limit-rate-minutes", 10));

	private long nextKillAt;

	private int lastProgress;

	private int done;

	private Instant firstStart;

	private boolean fleetKilled;

	private boolean natsRestarted;

	LimitRows(FaultRow row, Path directory, int planned, Random random, Log log) {
		this.row = row;
		this.directory = directory;
		this.planned = planned;
		this.random = random;
		this.log = log;
	}

	/** Whether this is the concurrency row (else the rate row). */
	private boolean concurrency() {
		return this.row == FaultRow.LIMIT_KILL_HOLDERS;
	}

	/**
	 * The consumers' settings: the limit, the marketing agent under it, and in the concurrency row more
	 * workers (and ack slots) than a key may use.
	 * @param consumer the marketing consumer's property prefix
	 * @param consumers consumer JVMs
	 * @return properties to add to every consumer's
	 */
	Map<String, String> consumerProperties(String consumer, int consumers) {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("sample.limit", LIMIT);
		if (concurrency()) {
			properties.put("exactlyonce.limits." + LIMIT + ".concurrency", Integer.toString(CONCURRENCY));
			properties.put("sample.limit-key", "payload.payload['lane']");
			properties.put(consumer + "concurrency", Integer.toString(WORKERS));
			properties.put(consumer + "max-ack-pending", Integer.toString(consumers * WORKERS + 2));
		}
		else {
			properties.put("exactlyonce.limits." + LIMIT + ".rate", Integer.toString(RATE));
			properties.put("exactlyonce.limits." + LIMIT + ".per", PER.toMillis() + "ms");
		}
		return properties;
	}

	/** The publisher's pause between tasks: three times the rate in the rate row. */
	long publishPauseMillis() {
		return concurrency() ? KILL_ROW_PUBLISH_PAUSE_MILLIS : PER.toMillis() / (3L * RATE);
	}

	/** Lanes of the tasks' payloads: the concurrency row's keys. */
	int lanes() {
		return concurrency() ? LANES : 0;
	}

	/**
	 * The concurrency row's slots complete a task about every 1.4 s (70 minutes for 1,000 tasks and
	 * their kills, with room); the rate row drains at the rate: the tasks at the rate plus 10 minutes.
	 */
	Duration rowTimeout(Duration profile, int tasks) {
		Duration needed = concurrency() ? Duration.ofMinutes(70) : PER.multipliedBy(tasks / RATE + 10);
		return (needed.compareTo(profile) > 0) ? needed : profile;
	}

	/**
	 * Injects when due: in the concurrency row a {@code kill -9} of a ready consumer JVM holding a slot
	 * (one at a time, once a task completed since the last); in the rate row every consumer JVM killed
	 * half-way through the measured minutes and the nats-server restarted at three quarters.
	 * @return the injections made now (each JVM killed, the server restart)
	 */
	int poll(List<ConsumerSlot> slots, int progress, NatsEnvironment nats) {
		return concurrency() ? killHolder(slots, progress) : disturbRate(slots, nats);
	}

	private int killHolder(List<ConsumerSlot> slots, int progress) {
		long now = System.nanoTime();
		if (this.done >= this.planned || now < this.nextKillAt || progress <= this.lastProgress) {
			return 0;
		}
		List<ConsumerSlot> ready = slots.stream().filter((slot) -> slot.alive() && slot.ready()).toList();
		List<ConsumerSlot> holding = ready.stream().filter((slot) -> Holds.open(slot) > 0).toList();
		// a survivor always takes over: the dead holders' slots are then wanted as soon as they free
		if (holding.isEmpty() || ready.size() < 2) {
			return 0;
		}
		kill(holding.get(this.random.nextInt(holding.size())));
		this.lastProgress = progress;
		this.nextKillAt = now + KILL_SPACING.toNanos();
		this.done++;
		return 1;
	}

	private int disturbRate(List<ConsumerSlot> slots, NatsEnvironment nats) {
		if (this.firstStart == null) {
			this.firstStart = slots.stream()
				.flatMap((slot) -> Evidence.lines(slot.directory().resolve("holds.log")).stream())
				.filter((line) -> line.startsWith("start ") && line.split(" ").length == 4)
				.map((line) -> Instant.parse(line.split(" ")[3]))
				.min(Instant::compareTo)
				.orElse(null);
			return 0;
		}
		Duration since = Duration.between(this.firstStart, Instant.now());
		if (!this.fleetKilled && since.compareTo(this.measured.dividedBy(2)) >= 0) {
			this.fleetKilled = true;
			List<ConsumerSlot> alive = slots.stream().filter(ConsumerSlot::alive).toList();
			alive.forEach(this::kill);
			this.log.line("killed every consumer JVM (" + alive.size() + ") " + since.toSeconds() + " s after the first start");
			return alive.size();
		}
		if (!this.natsRestarted && since.compareTo(this.measured.multipliedBy(3).dividedBy(4)) >= 0) {
			this.natsRestarted = true;
			nats.restartServer();
			this.log.line("restarted the nats-server " + since.toSeconds() + " s after the first start");
			return 1;
		}
		return 0;
	}

	private void kill(ConsumerSlot slot) {
		String instance = slot.instanceId();
		slot.killAndWait();
		Instant dead = Instant.now();
		this.kills.put(instance, dead);
		this.killed.add(slot);
		append("kills.log", instance + " " + dead);
	}

	/**
	 * Whether a dead JVM was one this killed (its exit is the injection, not a failure); forgets it.
	 * @param slot the slot whose JVM died
	 * @return whether it was killed here
	 */
	boolean exited(ConsumerSlot slot) {
		return this.killed.remove(slot);
	}

	/**
	 * Judges the row from the consumers' {@code holds.log} files: adds what breaks the limit to
	 * {@code unexpected}, the figures to {@code notes}, and writes them to {@code limits.txt}.
	 * @param slots the consumers
	 * @param prefix the row's task id prefix ({@code <prefix>-<i>})
	 */
	void judge(List<ConsumerSlot> slots, String prefix, List<String> unexpected, List<String> notes) {
		Holds holds = Holds.read(slots, this.kills, Instant.now());
		unexpected.addAll(holds.problems());
		List<String> lines = concurrency() ? judgeConcurrency(holds, prefix, unexpected)
				: judgeRate(holds, unexpected);
		notes.addAll(lines);
		lines.forEach(this.log::line);
		append("limits.txt", String.join("\n", lines));
	}

	private List<String> judgeConcurrency(Holds holds, String prefix, List<String> unexpected) {
		java.util.function.Function<String, String> keyOf = (task) -> TaskPublisher
			.lane(Integer.parseInt(task.substring(prefix.length() + 1)), LANES);
		Map<String, Holds.Overlap> overlaps = holds.overlaps(keyOf, CONCURRENCY);
		int over = overlaps.values().stream().mapToInt(Holds.Overlap::over).sum();
		if (over > 0) {
			unexpected.add(over + " start(s) over concurrency " + CONCURRENCY + ": " + overlaps);
		}
		long cut = holds.holds().stream().filter(Holds.Hold::killed).count();
		List<Duration> recoveries = holds.slotRecoveries(keyOf, CONCURRENCY).stream().sorted().toList();
		List<String> lines = new ArrayList<>();
		lines.add("limit concurrency " + CONCURRENCY + " per key: most holders at once per key "
				+ overlaps.entrySet().stream().map((entry) -> entry.getKey() + "=" + entry.getValue().max())
					.collect(Collectors.joining(", "))
				+ " (" + holds.holds().size() + " handler runs), " + over + " start(s) over the limit");
		lines.add(cut + " hold(s) cut by a kill -9 (held until the JVM was seen dead), " + holds.reruns()
				+ " handler run(s) beyond one per task");
		lines.add("slot recovery after a kill (kill to the start that needed the dead slot), " + recoveries.size()
				+ " measured: " + (recoveries.isEmpty() ? "none"
						: "median " + millis(recoveries.get(recoveries.size() / 2)) + ", p90 "
								+ millis(recoveries.get(recoveries.size() * 9 / 10)) + ", max "
								+ millis(recoveries.get(recoveries.size() - 1))));
		return lines;
	}

	private List<String> judgeRate(Holds holds, List<String> unexpected) {
		List<Instant> starts = holds.starts();
		int strict = mostWithin(starts, PER);
		int tolerant = mostWithin(starts, PER.minus(RATE_TOLERANCE));
		if (tolerant > RATE) {
			unexpected.add(tolerant + " starts within " + PER.minus(RATE_TOLERANCE).toMillis() + " ms (rate " + RATE
					+ " per " + PER.toSeconds() + " s)");
		}
		Duration tightest = null;
		for (int i = 0; i + RATE < starts.size(); i++) {
			Duration span = Duration.between(starts.get(i), starts.get(i + RATE));
			tightest = (tightest == null || span.compareTo(tightest) < 0) ? span : tightest;
		}
		List<String> lines = new ArrayList<>();
		lines.add("limit rate " + RATE + " per " + PER.toSeconds() + " s: " + starts.size() + " starts; most in any "
				+ "sliding " + PER.toSeconds() + " s on the start lines' clock " + strict + ", in any "
				+ PER.minus(RATE_TOLERANCE).toMillis() + " ms " + tolerant + "; tightest " + (RATE + 1)
				+ " consecutive starts span " + ((tightest != null) ? millis(tightest) : "-") + "; " + holds.reruns()
				+ " handler run(s) beyond one per task");
		if (!starts.isEmpty()) {
			Instant first = starts.get(0);
			List<String> perMinute = new ArrayList<>();
			for (long minute = 0; minute < this.measured.toMinutes(); minute++) {
				Instant from = first.plus(PER.multipliedBy(minute));
				Instant to = from.plus(PER);
				perMinute.add(Long.toString(starts.stream().filter((at) -> !at.isBefore(from) && at.isBefore(to)).count()));
			}
			lines.add("starts per minute from the first start (fixed windows): " + String.join(", ", perMinute));
		}
		return lines;
	}

	/** The most instants within any half-open window of the given length (two pointers over sorted instants). */
	static int mostWithin(List<Instant> sorted, Duration window) {
		int most = 0;
		int from = 0;
		for (int to = 0; to < sorted.size(); to++) {
			while (!sorted.get(from).plus(window).isAfter(sorted.get(to))) {
				from++;
			}
			most = Math.max(most, to - from + 1);
		}
		return most;
	}

	private static String millis(Duration duration) {
		return duration.toMillis() + " ms";
	}

	private void append(String file, String text) {
		try {
			Files.writeString(this.directory.resolve(file), text + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
