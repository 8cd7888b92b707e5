package dev.exactlyonce.sample;

import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.exactlyonce.test.FirestoreEmulatorProcess;
import dev.exactlyonce.test.NatsServerProcess;

/**
 * The sample with {@code --spring.profiles.active=firestore}, against its own Firestore emulator.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@ActiveProfiles("firestore")
class SampleOnFirestoreIntegrationTests extends SampleStoreProfileSupport {

	private static final NatsServerProcess nats = new NatsServerProcess().start();

	private static final FirestoreEmulatorProcess firestore = new FirestoreEmulatorProcess().start();

	SampleOnFirestoreIntegrationTests() {
		super("firestore");
	}

	@DynamicPropertySource
	static void firestoreProperties(DynamicPropertyRegistry registry) {
		registry.add("exactlyonce.nats.servers", nats::url);
		registry.add("spring.cloud.gcp.firestore.emulator.enabled", () -> "true");
		registry.add("spring.cloud.gcp.firestore.host-port", firestore::hostPort);
	}

	@AfterAll
	static void stopServers() {
		firestore.close();
		nats.close();
	}

}
