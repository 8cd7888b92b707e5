package dev.exactlyonce.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.nats.client.Connection;

/**
 * Runs {@link TaskPublisher} in its own JVM and follows its output: which task it confirmed last,
 * how many of its publishes the stream recognised as duplicates. {@link #killAndRestart()} kills
 * it with SIGKILL and starts it again a few tasks before the last confirmation, so tasks are
 * published again with the same message ids.
 */
final class PublisherProcess {

	/** How many confirmed tasks a restarted publisher publishes again. */
	static final int OVERLAP = 5;

	private final Path directory;

	private final List<String> urls;

	private final String prefix;

	private final int count;

	private final long pauseMillis;

	private final int copies;

	private final Duration copyGap;

	private final int lanes;

	private Process process;

	private int incarnation;

	private int highestConfirmed = -1;

	private int duplicatesEarlier;

	private int duplicatesNow;

	private int retries;

	private final Set<Long> storedSequences = new HashSet<>();

	private boolean done;

	private boolean campaigns;

	private int kills;

	/**
	 * A publisher of every task {@code copies} times, {@code copyGap} apart (see {@link TaskPublisher}).
	 */
	PublisherProcess(Path directory, List<String> urls, String prefix, int count, long pauseMillis, int copies,
			Duration copyGap) {
		this(directory, urls, prefix, count, pauseMillis, copies, copyGap, 0);
	}

	/**
	 * A publisher of every task {@code copies} times, {@code copyGap} apart, each task in lane
	 * {@code k<i % lanes>} when {@code lanes} is above 0 (see {@link TaskPublisher}).
	 */
	PublisherProcess(Path directory, List<String> urls, String prefix, int count, long pauseMillis, int copies,
			Duration copyGap, int lanes) {
		this.lanes = lanes;
		this.directory = directory;
		this.urls = urls;
		this.prefix = prefix;
		this.count = count;
		this.pauseMillis = pauseMillis;
		this.copies = copies;
		this.copyGap = copyGap;
	}

	/**
	 * Publishes campaigns of the sample's CEO agent instead of marketing tasks (set before {@link #start}).
	 * @return this publisher
	 */
	PublisherProcess campaigns() {
		this.campaigns = true;
		return this;
	}

	void start(int from) {
		this.incarnation++;
		List<String> command = List.of(Binaries.java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m",
				"-cp", classpath(), TaskPublisher.class.getName(), String.join(",", this.urls), this.prefix,
				Integer.toString(from), Integer.toString(this.count), Long.toString(this.pauseMillis),
				Integer.toString(this.copies), Long.toString(this.copyGap.toMillis()),
				this.campaigns ? TaskPublisher.CAMPAIGNS : "tasks", Integer.toString(this.lanes));
		try {
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(currentLog().toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the publisher: " + command, ex);
		}
	}

	/** Reads the current incarnation's output; fails when it died on its own. */
	void poll() {
		if (this.process == null || this.done) {
			return;
		}
		read();
		if (!this.done && !this.process.isAlive()) {
			throw new IllegalStateException("The publisher exited with status " + this.process.exitValue()
					+ " before it was done; see " + currentLog());
		}
	}

	private void read() {
		int duplicates = 0;
		try {
			for (String line : Files.readAllLines(currentLog())) {
				String[] fields = line.split(" ");
				if (isAck(fields)) {
					this.highestConfirmed = Math.max(this.highestConfirmed, Integer.parseInt(fields[1]));
					duplicates += Boolean.parseBoolean(fields[3]) ? 1 : 0;
					this.storedSequences.add(Long.parseLong(fields[2]));
				}
				else if (fields[0].equals("done")) {
					this.done = true;
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.duplicatesNow = duplicates;
	}

	/** An {@code ack <i> <seq> <duplicate> <stream>} line of {@link TaskPublisher}. */
	private static boolean isAck(String[] fields) {
		return fields[0].equals("ack") && fields.length == 5;
	}

	/**
	 * The PubAcks every incarnation printed for the given tasks.
	 * @param tasks task ids
	 * @return their acks, in publisher and line order
	 */
	List<LossEvidence.PubAck> acksOf(Set<String> tasks) {
		List<LossEvidence.PubAck> acks = new ArrayList<>();
		for (int i = 1; i <= this.incarnation; i++) {
			Path log = this.directory.resolve("publisher-" + i + ".log");
			try {
				for (String line : Files.readAllLines(log)) {
					String[] fields = line.split(" ");
					String task = isAck(fields) ? TaskPublisher.taskId(this.prefix, Integer.parseInt(fields[1])) : null;
					if (task != null && tasks.contains(task)) {
						acks.add(new LossEvidence.PubAck(task, Long.parseLong(fields[2]), Boolean.parseBoolean(fields[3]),
								fields[4], log.getFileName().toString()));
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return acks;
	}

	/** SIGKILL mid-batch, then a new publisher from {@link #OVERLAP} tasks before the last confirmed one. */
	void killAndRestart() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		read();
		this.kills++;
		this.duplicatesEarlier += this.duplicatesNow;
		this.duplicatesNow = 0;
		if (!this.done) {
			start(Math.max(0, this.highestConfirmed + 1 - OVERLAP));
		}
	}

	/** Index of the last task confirmed by the stream, -1 before the first. */
	int highestConfirmed() {
		return this.highestConfirmed;
	}

	boolean done() {
		return this.done;
	}

	int kills() {
		return this.kills;
	}

	/** Publishes the stream answered as duplicates (re-published ids it had stored already). */
	int duplicatesSuppressed() {
		return this.duplicatesEarlier + this.duplicatesNow;
	}

	/**
	 * Task messages the stream confirmed as stored, counted by their distinct sequences (a duplicate's
	 * ack names the stored original, so a task whose first ack died with a killed publisher still
	 * counts): the stream's last sequence also counts the deploy tasks the consumers publish to it.
	 */
	long storedTasks() {
		read();
		return this.storedSequences.size();
	}

	void close() {
		if (this.process != null && this.process.isAlive()) {
			this.process.destroyForcibly();
		}
	}

	private Path currentLog() {
		return this.directory.resolve("publisher-" + this.incarnation + ".log");
	}

	/** The publisher needs this module's classes and jnats (with its dependencies, when present). */
	private static String classpath() {
		Set<String> entries = new LinkedHashSet<>();
		entries.add(location(TaskPublisher.class));
		entries.add(location(Connection.class));
		for (String optional : List.of("org.bouncycastle.jce.provider.BouncyCastleProvider",
				"org.jspecify.annotations.Nullable")) {
			try {
				entries.add(location(Class.forName(optional)));
			}
			catch (ClassNotFoundException ex) {
				// not on this classpath: jnats runs without it
			}
		}
		return String.join(File.pathSeparator, new ArrayList<>(entries));
	}

	private static String location(Class<?> type) {
		try {
			return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
