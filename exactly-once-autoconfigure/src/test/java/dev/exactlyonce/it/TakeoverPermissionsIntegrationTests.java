package dev.exactlyonce.it;

import java.time.Duration;

import io.nats.client.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.nats.PermissionViolation;
import dev.exactlyonce.nats.PermissionViolations;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A worker that enables the restart takeover while its NATS user keeps the permissions
 * docs/security.md documented before it: start-up fails at once, naming the instances bucket's
 * subject to allow and the switch that turns the takeover off, rather than hanging or failing later
 * in silence. A worker refused only the presence subject's subscription starts, and the error it
 * logs names the pattern to allow, not its subject of this start.
 */
class TakeoverPermissionsIntegrationTests {

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	@Test
	void aWorkerWithThePermissionsDocumentedBeforeTheTakeoverEnablingItFailsStartUpNamingTheSubjectAndTheSwitch() {
		String before = LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS
			.replaceAll("(?m)^.*EXACTLYONCE_INSTANCES.*\\n", "")
			.replace("\"exactlyonce.waits.>\",\n        \"exactlyonce.instance.>\"\n", "\"exactlyonce.waits.>\"\n")
			.replace(",\n        \"exactlyonce.instance.>\" ]", " ]");
		assertThat(before).doesNotContain("INSTANCES").doesNotContain("exactlyonce.instance.");
		TestInstances instances = instances(LeastPrivilegeIntegrationTests.server(before));
		LeastPrivilegeIntegrationTests.provision(instances);
		long started = System.nanoTime();
		Throwable failure = catchThrowable(() -> instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate",
				"exactlyonce.takeover.enabled=true"));
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		System.out.println("TAKEOVER-PERMISSIONS took " + took + ": " + failure);
		ExactlyOnceConfigurationException cause = LeastPrivilegeIntegrationTests.rootConfigurationFailure(failure);
		assertThat(cause.getProblemSentence()).contains("EXACTLYONCE_INSTANCES");
		assertThat(cause.getAction()).contains("\"$JS.API.STREAM.INFO.KV_EXACTLYONCE_INSTANCES\"")
			.contains("publish")
			.contains("exactlyonce.takeover.enabled=false");
		assertThat(took).as("no 30 s of retries").isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void aWorkerRefusedOnlyThePresenceSubscriptionStartsAndItsErrorNamesThePatternToAllow() {
		String presence = ",\n        \"exactlyonce.instance.>\" ]";
		assertThat(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS).contains(presence);
		TestInstances instances = instances(
				LeastPrivilegeIntegrationTests.server(LeastPrivilegeIntegrationTests.WORKER_PERMISSIONS.replace(presence, " ]")));
		instances.start("deploy-job", "exactlyonce.nats.username=provisioner", "exactlyonce.nats.password=provisioner-pw",
				"exactlyonce.listener.auto-startup=false", "exactlyonce.takeover.enabled=true").context().close();
		Connection connection = instances.start("a", "exactlyonce.nats.username=worker",
				"exactlyonce.nats.password=worker-pw", "exactlyonce.provisioning.mode=validate",
				"exactlyonce.takeover.enabled=true")
			.context()
			.getBean(Connection.class);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(PermissionViolations.reportedOn(connection))
				.extracting(PermissionViolation::toAllow)
				.containsExactly("exactlyonce.instance.>"));
	}

	private TestInstances instances(NatsServerProcess nats) {
		this.resources.add(nats);
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

}
