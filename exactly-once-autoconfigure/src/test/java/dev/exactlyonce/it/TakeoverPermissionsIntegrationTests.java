package dev.exactlyonce.it;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A worker upgraded to a version with the restart takeover (on by default) while its NATS user keeps
 * the permissions docs/security.md documented before it: start-up fails at once, naming the
 * instances bucket's subject to allow, rather than hanging or failing later in silence. A worker
 * refused only the presence subject's subscription starts, but is then seen as gone by a process
 * with its id (printed).
 */
class TakeoverPermissionsIntegrationTests {

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void aWorkerWithThePermissionsDocumentedBeforeTheTakeoverFailsStartUpNamingTheSubjectAndTheSwitch() {
		String before = LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS
			.replaceAll("(?m)^.*EXACTLYONCE_INSTANCES.*\\n", "")
			.replace("\"exactlyonce.waits.>\",\n        \"exactlyonce.instance.>\"\n", "\"exactlyonce.waits.>\"\n")
			.replace(",\n        \"exactlyonce.instance.>\" ]", " ]");
		assertThat(before).doesNotContain("INSTANCES").doesNotContain("exactlyonce.instance.");
		TestInstances instances = instances(LeastPrivilegeIntegrationTests.server(before));
		LeastPrivilegeIntegrationTests.provision(instances);
		long started = System.nanoTime();
		Throwable failure = catchThrowable(() -> instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate"));
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		System.out.println("TAKEOVER-PERMISSIONS took " + took + ": " + failure);
		ExactlyOnceConfigurationException cause = LeastPrivilegeIntegrationTests.rootConfigurationFailure(failure);
		assertThat(cause.getProblemSentence()).contains("EXACTLYONCE_INSTANCES");
		assertThat(cause.getAction()).contains("\"$JS.API.STREAM.INFO.KV_EXACTLYONCE_INSTANCES\"").contains("publish");
		assertThat(took).as("no 30 s of retries").isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void aWorkerRefusedOnlyThePresenceSubscription() {
		String presence = ",\n        \"exactlyonce.instance.>\" ]";
		assertThat(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS).contains(presence);
		TestInstances instances = instances(
				LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS.replace(presence, " ]")));
		LeastPrivilegeIntegrationTests.provision(instances);
		Throwable failure = catchThrowable(() -> instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate"));
		System.out.println("TAKEOVER-PRESENCE-SUBSCRIBE refused: start-up " + ((failure != null) ? "failed: " + failure : "succeeded"));
	}

	private TestInstances instances(NatsServerProcess nats) {
		this.resources.add(nats);
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

}
