package dev.exactlyonce.test;

import java.time.Duration;
import java.util.List;

/**
 * Google's Cloud Firestore emulator on a free loopback port. The launcher is
 * {@code $FIRESTORE_EMULATOR_BIN}, else the one of the Debian {@code google-cloud-sdk} package
 * ({@code google-cloud-cli-firestore-emulator}), else {@code cloud_firestore_emulator} on the path;
 * it needs {@code java} on the path. Data lives in the emulator's memory only, so a restart starts
 * empty. Takes a few seconds to start.
 */
public class FirestoreEmulatorProcess extends ServerProcess {

	private static final String DEFAULT_LAUNCHER = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator";

	/** Creates the handle; call {@link #start()}. */
	public FirestoreEmulatorProcess() {
		super("firestore-emulator");
	}

	@Override
	protected List<String> command() {
		return List.of(executable("FIRESTORE_EMULATOR_BIN", DEFAULT_LAUNCHER, "cloud_firestore_emulator"), "start",
				"--host=127.0.0.1", "--port=" + port());
	}

	@Override
	protected Duration startupTimeout() {
		return Duration.ofSeconds(60);
	}

	/**
	 * The emulator's address as {@code FIRESTORE_EMULATOR_HOST} and Spring Cloud GCP's
	 * {@code spring.cloud.gcp.firestore.host-port} expect it.
	 * @return {@code 127.0.0.1:<port>}
	 */
	public String hostPort() {
		return "127.0.0.1:" + port();
	}

	@Override
	public FirestoreEmulatorProcess start() {
		super.start();
		return this;
	}

}
