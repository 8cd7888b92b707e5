package dev.exactlyonce.sample.chaos;

import java.nio.file.Path;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Fault injection for the fault-injection suite, bound from {@code sample.chaos.*}. Nothing is
 * injected unless {@code halt-at} is set.
 */
@ConfigurationProperties("sample.chaos")
public class ChaosProperties {

	/** Where to halt the process ({@code Runtime.halt}, no shutdown hooks); unset disables chaos. */
	private ChaosPoint haltAt;

	/**
	 * The durable step at which {@code step-performed} and {@code step-done} halt, e.g. {@code draft},
	 * {@code commit} or {@code publish:agents.devops.tasks.deploy}.
	 */
	private String step;

	/**
	 * With {@code step-done}: halt only after the step ran, not when an attempt replayed it from the
	 * journal (a parent halted between starting its children, not again on each resumption).
	 */
	private boolean skipReplayed;

	public boolean isSkipReplayed() {
		return this.skipReplayed;
	}

	public void setSkipReplayed(boolean skipReplayed) {
		this.skipReplayed = skipReplayed;
	}

	/** The consumer whose deliveries may be halted; the others (the DevOps agent's) run undisturbed. */
	private String consumer = "marketing-task-worker";

	/** Chance (0..1) that a delivery reaching {@code halt-at} halts the process. */
	private double probability = 1.0;

	/** Seed of the random choice; a random seed when unset. */
	private Long seed;

	/** Exit status of a chaos halt, so a driver can tell it from other deaths. */
	private int exitStatus = 99;

	/** Longest delay of the halt racing the ack at {@code during-ack}. */
	private Duration ackRaceWindow = Duration.ofMillis(2);

	/**
	 * Instead of halting at {@code halt-at}, record the point in the log file and hold the delivery's
	 * thread there this long, so a driver watching the file can freeze the JVM ({@code kill -STOP})
	 * at that point; unset halts.
	 */
	private Duration stall;

	/**
	 * Instead of halting, exit through the JVM's shutdown hooks, as a SIGTERM does (Spring closes
	 * the context and the listener's shutdown releases the claims still in flight), while the
	 * delivery's thread stays at {@code halt-at} deaf to interrupts, like an action blocked in a
	 * call that ignores them.
	 */
	private boolean graceful;

	/** File that gets one fsynced line per halt before it happens; {@code <output-dir>/chaos.log} when unset. */
	private Path logFile;

	public ChaosPoint getHaltAt() {
		return this.haltAt;
	}

	public void setHaltAt(ChaosPoint haltAt) {
		this.haltAt = haltAt;
	}

	public String getStep() {
		return this.step;
	}

	public void setStep(String step) {
		this.step = step;
	}

	public String getConsumer() {
		return this.consumer;
	}

	public void setConsumer(String consumer) {
		this.consumer = consumer;
	}

	public double getProbability() {
		return this.probability;
	}

	public void setProbability(double probability) {
		this.probability = probability;
	}

	public boolean isGraceful() {
		return this.graceful;
	}

	public void setGraceful(boolean graceful) {
		this.graceful = graceful;
	}

	public Long getSeed() {
		return this.seed;
	}

	public void setSeed(Long seed) {
		this.seed = seed;
	}

	public int getExitStatus() {
		return this.exitStatus;
	}

	public void setExitStatus(int exitStatus) {
		this.exitStatus = exitStatus;
	}

	public Duration getAckRaceWindow() {
		return this.ackRaceWindow;
	}

	public void setAckRaceWindow(Duration ackRaceWindow) {
		this.ackRaceWindow = ackRaceWindow;
	}

	public Duration getStall() {
		return this.stall;
	}

	public void setStall(Duration stall) {
		this.stall = stall;
	}

	public Path getLogFile() {
		return this.logFile;
	}

	public void setLogFile(Path logFile) {
		this.logFile = logFile;
	}

}
