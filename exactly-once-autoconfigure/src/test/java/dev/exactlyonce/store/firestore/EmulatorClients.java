package dev.exactlyonce.store.firestore;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.FirestoreOptions;

/**
 * Firestore clients of the tests' emulator.
 */
final class EmulatorClients {

	private EmulatorClients() {
	}

	/**
	 * A client of the emulator (or of a proxy in front of it).
	 * @param hostPort the emulator's {@code host:port}
	 * @return the client
	 */
	static Firestore connect(String hostPort) {
		return FirestoreOptions.newBuilder().setProjectId("exactly-once-test").setEmulatorHost(hostPort).build().getService();
	}

}
