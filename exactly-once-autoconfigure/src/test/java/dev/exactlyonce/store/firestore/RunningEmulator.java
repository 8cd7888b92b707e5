package dev.exactlyonce.store.firestore;

import java.time.Duration;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.ServiceOptions;
import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;

import dev.exactlyonce.test.FirestoreEmulatorProcess;

/**
 * Google's Firestore emulator started for one test class, with a client of it.
 */
final class RunningEmulator implements AutoCloseable {

	/**
	 * The store's call timeout in tests that are about atomicity, not speed: the emulator runs
	 * contended transactions one after another, so racing writers on a busy machine can wait
	 * longer than a production timeout of a few seconds.
	 */
	static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);

	/**
	 * The library's retry settings with a shorter wait between attempts of a contended transaction
	 * (its default starts at 1 s and doubles, so sixteen racers for one document could outwait
	 * {@link #CALL_TIMEOUT} on a loaded machine); what the contract tests prove is who wins, not
	 * how long the losers back off.
	 */
	private static final RetrySettings QUICK_RETRIES = ServiceOptions.getDefaultRetrySettings()
		.toBuilder()
		.setInitialRetryDelayDuration(Duration.ofMillis(50))
		.setMaxRetryDelayDuration(Duration.ofSeconds(1))
		.build();

	private final FirestoreEmulatorProcess process;

	private final Firestore client;

	private RunningEmulator(FirestoreEmulatorProcess process) {
		this.process = process;
		this.client = connect(process.hostPort());
	}

	/**
	 * Starts the emulator on a free port.
	 * @return the running emulator
	 */
	static RunningEmulator start() {
		return new RunningEmulator(new FirestoreEmulatorProcess().start());
	}

	/**
	 * A client of the emulator, or of a proxy in front of it.
	 * @param hostPort where to connect
	 * @return the client
	 */
	static Firestore connect(String hostPort) {
		return FirestoreOptions.newBuilder()
			.setProjectId("exactly-once-test")
			.setEmulatorHost(hostPort)
			.setRetrySettings(QUICK_RETRIES)
			.build()
			.getService();
	}

	/** The emulator's process. */
	FirestoreEmulatorProcess process() {
		return this.process;
	}

	/** The client connected at start. */
	Firestore client() {
		return this.client;
	}

	@Override
	public void close() throws Exception {
		this.client.close();
		this.process.close();
	}

}
