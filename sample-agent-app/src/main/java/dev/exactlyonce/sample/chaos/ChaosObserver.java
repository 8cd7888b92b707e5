package dev.exactlyonce.sample.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.listener.PipelineObserver;
import dev.exactlyonce.listener.PipelinePoint;
import dev.exactlyonce.listener.StepOutcome;
import dev.exactlyonce.sample.SampleProperties;
import dev.exactlyonce.waits.WaitObserver;
import dev.exactlyonce.waits.WaitPoint;

/**
 * Fault injection through the starter's {@link PipelineObserver} extension point (and
 * {@link WaitObserver}, for {@link ChaosPoint#SIGNAL_TAKEN}): halts the JVM
 * ({@link Runtime#halt}: no shutdown hooks, no graceful stop, as {@code kill -9} would) when a
 * delivery of the configured consumer reaches the configured {@link ChaosPoint}, with the
 * configured probability ({@code step-performed} and {@code step-done} only in the durable step
 * {@code sample.chaos.step}; with {@code sample.chaos.skip-replayed} not where a step replayed), or with
 * {@code sample.chaos.stall} holds the delivery's thread there
 * instead, so a driver can freeze the JVM at that point, or with {@code sample.chaos.graceful} exits
 * through the shutdown hooks (as a SIGTERM) while holding the thread there deaf to interrupts. Before halting it appends {@code <point> <key> <instance> <timestamp>}
 * to its log file and fsyncs it, so a driver can count injections. Only registered when
 * {@code sample.chaos.halt-at} is set.
 */
public class ChaosObserver implements PipelineObserver, WaitObserver {

	private final ChaosPoint haltAt;

	private final String consumer;

	private final String step;

	private final double probability;

	private final Random random;

	private final int exitStatus;

	private final long ackRaceWindowNanos;

	private final Path logFile;

	private final Duration stall;

	private final boolean graceful;

	private final boolean skipReplayed;

	private final AtomicBoolean exiting = new AtomicBoolean();

	private final String instanceId;

	private final String keyPrefix;

	private final ThreadLocal<String> haltMidHandler = new ThreadLocal<>();

	private volatile String racingKey;

	private volatile boolean racingKeyAcked;

	/**
	 * Creates the observer.
	 * @param chaos where and how often to halt
	 * @param sample the sample's settings (output directory, instance id)
	 */
	public ChaosObserver(ChaosProperties chaos, SampleProperties sample) {
		this.haltAt = chaos.getHaltAt();
		this.step = chaos.getStep();
		if ((this.haltAt == ChaosPoint.STEP_PERFORMED || this.haltAt == ChaosPoint.STEP_DONE) && this.step == null) {
			throw new IllegalStateException("sample.chaos.halt-at=" + this.haltAt + " needs the step to halt in: "
					+ "set sample.chaos.step (e.g. commit)");
		}
		this.consumer = chaos.getConsumer();
		this.probability = chaos.getProbability();
		this.random = (chaos.getSeed() != null) ? new Random(chaos.getSeed()) : new Random();
		this.exitStatus = chaos.getExitStatus();
		this.ackRaceWindowNanos = chaos.getAckRaceWindow().toNanos();
		this.stall = chaos.getStall();
		this.graceful = chaos.isGraceful();
		this.skipReplayed = chaos.isSkipReplayed();
		this.logFile = (chaos.getLogFile() != null) ? chaos.getLogFile()
				: sample.getOutputDir().resolve("chaos.log");
		this.instanceId = sample.resolvedInstanceId();
		this.keyPrefix = this.consumer + ":";
	}

	@Override
	public void onPoint(PipelinePoint point, ExactlyOnceContext context) {
		if (!this.consumer.equals(context.consumer())) {
			return;
		}
		if (point == PipelinePoint.ACKED && context.key() != null && context.key().equals(this.racingKey)) {
			this.racingKeyAcked = true;
		}
		if (point != this.haltAt.trigger() || this.haltAt == ChaosPoint.STEP_PERFORMED || !selected()) {
			return;
		}
		String task = (context.key() != null) ? context.key() : "sequence-" + context.streamSequence();
		switch (this.haltAt) {
			case MID_HANDLER -> this.haltMidHandler.set(task);
			case DURING_ACK -> raceTheAck(task);
			default -> halt(task);
		}
	}

	@Override
	public void onStepPerformed(ExactlyOnceContext context, String step) {
		haltInStep(ChaosPoint.STEP_PERFORMED, context, step);
	}

	@Override
	public void onStep(ExactlyOnceContext context, String step, StepOutcome outcome) {
		if (!this.skipReplayed || outcome != StepOutcome.REPLAYED) {
			haltInStep(ChaosPoint.STEP_DONE, context, step);
		}
	}

	/**
	 * Halts at {@link ChaosPoint#SIGNAL_TAKEN}: at one of the two wait points, chosen at random, for
	 * a task of the configured consumer (whose store keys the default namespace, the consumer's
	 * name, prefixes).
	 */
	@Override
	public void onPoint(WaitPoint point, String storeKey, String name) {
		if (this.haltAt != ChaosPoint.SIGNAL_TAKEN || !storeKey.startsWith(this.keyPrefix)) {
			return;
		}
		boolean here = (nextDouble() < 0.5) == (point == WaitPoint.DECISION_STORED);
		if (here && selected()) {
			halt(storeKey.substring(this.keyPrefix.length()), point.name().toLowerCase(Locale.ROOT).replace('_', '-'));
		}
	}

	private void haltInStep(ChaosPoint point, ExactlyOnceContext context, String step) {
		if (this.haltAt == point && this.step.equals(step) && this.consumer.equals(context.consumer())
				&& selected()) {
			halt((context.key() != null) ? context.key() : "sequence-" + context.streamSequence());
		}
	}

	/**
	 * Called by the marketing agent half-way through its work: halts when {@code mid-handler} chaos
	 * selected the delivery this thread is handling.
	 */
	public void midHandler() {
		String key = this.haltMidHandler.get();
		if (key != null) {
			this.haltMidHandler.remove();
			halt(key);
		}
	}

	private boolean selected() {
		synchronized (this.random) {
			return this.random.nextDouble() < this.probability;
		}
	}

	private void raceTheAck(String key) {
		record(key, null);
		long delay = (long) (this.ackRaceWindowNanos * nextDouble());
		this.racingKey = key;
		this.racingKeyAcked = false;
		Thread racer = new Thread(() -> {
			LockSupport.parkNanos(delay);
			System.err.println("chaos: during-ack halt of " + key + ", ack confirmed first: " + this.racingKeyAcked);
			Runtime.getRuntime().halt(this.exitStatus);
		}, "chaos-ack-racer");
		racer.setDaemon(true);
		racer.start();
	}

	private double nextDouble() {
		synchronized (this.random) {
			return this.random.nextDouble();
		}
	}

	/**
	 * Halts the JVM, or with {@code sample.chaos.stall} holds this thread there for a driver to
	 * freeze it, or with {@code sample.chaos.graceful} exits through the shutdown hooks while this
	 * thread stays here deaf to interrupts (once per JVM: later deliveries pass).
	 */
	private void halt(String key) {
		halt(key, null);
	}

	private void halt(String key, String where) {
		if (this.graceful) {
			exitGracefully(key);
			return;
		}
		record(key, where);
		if (this.stall != null) {
			long until = System.nanoTime() + this.stall.toNanos();
			for (long left = this.stall.toNanos(); left > 0 && !Thread.currentThread().isInterrupted();
					left = until - System.nanoTime()) {
				LockSupport.parkNanos(left);
			}
			return;
		}
		Runtime.getRuntime().halt(this.exitStatus);
	}

	private void exitGracefully(String key) {
		if (!this.exiting.compareAndSet(false, true)) {
			return;
		}
		record(key, null);
		Thread exit = new Thread(() -> System.exit(this.exitStatus), "chaos-graceful-exit");
		exit.start();
		while (true) {
			LockSupport.park(this);
		}
	}

	/** Appends the halt's line; {@code where} (a wait point) follows the chaos point after a slash. */
	private void record(String key, String where) {
		String line = this.haltAt.name().toLowerCase(Locale.ROOT).replace('_', '-')
				+ ((where != null) ? "/" + where : "") + " " + key + " "
				+ this.instanceId + " " + Instant.now() + "\n";
		try {
			Files.createDirectories(this.logFile.toAbsolutePath().getParent());
			try (FileChannel channel = FileChannel.open(this.logFile, StandardOpenOption.CREATE,
					StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
				channel.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
				channel.force(true);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not record a chaos halt in " + this.logFile, ex);
		}
	}

}
