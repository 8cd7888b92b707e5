package dev.exactlyonce.it;

import java.time.Duration;
import java.util.List;

import com.google.cloud.firestore.Firestore;
import com.google.cloud.firestore.QueryDocumentSnapshot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable waits on the Firestore store, in Google's emulator (one for the class). The emulator runs
 * no TTL policy, so the long wait checks what such a policy would go by: every sealed journal part
 * of a waiting task expires no earlier than its WAITING record.
 */
class FirestoreDurableWaitsIntegrationTests extends AbstractDurableWaitsIntegrationTests {

	private static FirestoreEmulatorProcess firestore;

	@BeforeAll
	static void startEmulator() {
		firestore = new FirestoreEmulatorProcess().start();
	}

	@AfterAll
	static void stopEmulator() {
		firestore.close();
	}

	@Override
	protected void configureStore(TestInstances instances) {
		instances.with("exactlyonce.store.type", "firestore")
			.with("exactlyonce.store.lease", "15s")
			.with("exactlyonce.store.firestore.timeout", "10s")
			.with("spring.cloud.gcp.core.enabled", "true")
			.with("spring.cloud.gcp.firestore.enabled", "true")
			.with("spring.cloud.gcp.firestore.project-id", "exactly-once-test")
			.with("spring.cloud.gcp.firestore.emulator.enabled", "true")
			.with("spring.cloud.gcp.firestore.host-port", firestore.hostPort());
	}

	@Override
	protected void assertKeptWhileWaiting(Instance instance, String storeKey, IdempotencyRecord waiting)
			throws Exception {
		List<QueryDocumentSnapshot> parts = instance.bean(Firestore.class)
			.collection("task-idempotency_journal")
			.get()
			.get()
			.getDocuments()
			.stream()
			.filter((part) -> part.getId().contains(storeKey.substring(storeKey.indexOf(':') + 1) + ".j."))
			.toList();
		assertThat(parts).as("sealed parts of the bulk steps").isNotEmpty();
		assertThat(parts).allSatisfy((part) -> assertThat(part.getTimestamp("expiresAt").toDate().toInstant())
			.as("part %s expires with the waiting record, not before", part.getId())
			.isAfterOrEqualTo(waiting.expiresAt().minus(Duration.ofSeconds(1))));
	}

}
