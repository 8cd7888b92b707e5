package dev.exactlyonce.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.nats.client.NKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.RecordState;
import dev.exactlyonce.test.NatsServerProcess;
import dev.exactlyonce.test.SelfSignedCertificate;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;
import dev.exactlyonce.testapp.TestInstances.Instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The whole pipeline (provisioning, publish, claim, completion, ack) runs against a nats-server that
 * demands TLS and a login: user and password, a token, an NKey (challenge signed with the seed
 * in {@code exactlyonce.nats.nkey-file}), or a credentials file (user JWT and seed, the server in
 * operator mode). The client trusts exactly the server's self-signed
 * certificate through a Spring SSL bundle.
 */
class NatsAuthenticationIntegrationTests {

	@RegisterExtension
	final ClosedAfterEach resources = new ClosedAfterEach();

	private final SelfSignedCertificate certificate = SelfSignedCertificate.create();

	@AfterEach
	void close() throws Exception {
		this.certificate.close();
	}

	@Test
	void userAndPasswordOverTls() {
		TestInstances instances = instances("authorization { user: agent, password: \"pw-9f3k\" }");
		Instance instance = instances.start("a", tls("exactlyonce.nats.username=agent", "exactlyonce.nats.password=pw-9f3k"));
		assertProcessesATask(instances, instance);
	}

	@Test
	void tokenOverTls() {
		TestInstances instances = instances("authorization { token: \"tk-7d2m\" }");
		Instance instance = instances.start("a", tls("exactlyonce.nats.token=tk-7d2m"));
		assertProcessesATask(instances, instance);
	}

	@Test
	void nkeySeedFileOverTls() throws Exception {
		NKey user = NKey.createUser(null);
		Path seed = Files.writeString(this.certificate.certificate().resolveSibling("user.nk"), new String(user.getSeed()));
		TestInstances instances = instances("authorization { users = [ { nkey: " + new String(user.getPublicKey()) + " } ] }");
		Instance instance = instances.start("a", tls("exactlyonce.nats.nkey-file=" + seed));
		assertProcessesATask(instances, instance);
	}

	@Test
	void credentialsFileWithAUserJwtOverTls() throws Exception {
		OperatorCredentials operator = OperatorCredentials.create(this.certificate.certificate().getParent());
		TestInstances instances = instances(operator.serverConfiguration());
		Instance instance = instances.start("a", tls("exactlyonce.nats.credentials-file=" + operator.credentialsFile()));
		assertProcessesATask(instances, instance);
	}

	@Test
	void aClientWithoutTlsIsRefusedWithAClearStartUpError() {
		TestInstances instances = instances("authorization { token: \"tk-7d2m\" }");
		Throwable failure = catchThrowable(() -> instances.start("a", "exactlyonce.nats.token=tk-7d2m"));
		assertThat(failure).hasStackTraceContaining("Could not connect to NATS").hasStackTraceContaining("TLS");
	}

	/**
	 * Whoever answers on the server's address can say in its INFO that it wants no TLS: with a TLS
	 * bundle the client refuses to go on in plain text, for a {@code nats://} URL as for {@code tls://},
	 * and sends nothing, so the password never leaves it.
	 */
	@Test
	void aServerThatOffersNoTlsGetsNoLoginInPlainText() throws Exception {
		TestInstances instances = instances("authorization { user: worker, password: pw-5kq9 }");
		for (String scheme : List.of("nats", "tls")) {
			try (PlainTextImpostor impostor = new PlainTextImpostor()) {
				Throwable failure = catchThrowable(() -> instances.start("a", tls("exactlyonce.nats.username=worker",
						"exactlyonce.nats.password=pw-5kq9",
						"exactlyonce.nats.servers=" + scheme + "://127.0.0.1:" + impostor.port())));
				assertThat(failure).as(scheme).hasStackTraceContaining("Could not connect to NATS");
				assertThat(impostor.connections()).as("connections the impostor took (%s)", scheme).isPositive();
				assertThat(impostor.received()).as("what the client sent to a server offering no TLS (%s)", scheme)
					.doesNotContain("CONNECT").doesNotContain("pw-5kq9");
			}
		}
	}

	@Test
	void aServerWhoseCertificateNamesAnotherHostFailsStartupNamingTheHostAndTheCertificatesNames() {
		SelfSignedCertificate impostor = certificate("evil.example", "DNS:evil.example");
		TestInstances instances = instances(impostor, "");
		Throwable failure = catchThrowable(() -> instances.start("a", tls(impostor)));
		assertThat(failure).hasStackTraceContaining("the TLS handshake failed")
			.hasStackTraceContaining("127.0.0.1")
			.hasStackTraceContaining("DNS:evil.example")
			.hasStackTraceContaining("exactlyonce.nats.tls.verify-hostname=false");
	}

	@Test
	void withHostnameVerificationTurnedOffAServerReachedByAnAddressItsCertificateDoesNotListIsUsed() {
		SelfSignedCertificate dnsOnly = certificate("nats.internal", "DNS:nats.internal");
		TestInstances instances = instances(dnsOnly, "");
		Instance instance = instances.start("a", tls(dnsOnly, "exactlyonce.nats.tls.verify-hostname=false"));
		assertProcessesATask(instances, instance);
	}

	@Test
	void aServerCertificateFromAnUntrustedIssuerFailsStartupNamingTheTlsCause() {
		SelfSignedCertificate other = certificate("localhost", "DNS:localhost,IP:127.0.0.1");
		TestInstances instances = instances("");
		Throwable failure = catchThrowable(() -> instances.start("a", tls(other)));
		assertThat(failure).hasStackTraceContaining("the TLS handshake failed")
			.hasStackTraceContaining("PKIX path")
			.hasStackTraceContaining("CN=localhost")
			.hasStackTraceContaining("put its CA in the SSL bundle");
	}

	@Test
	void aCertificateForTheDnsNameOnlyIsAcceptedWhenTheServerIsDialledByThatName() {
		SelfSignedCertificate dnsOnly = certificate("nats-server", "DNS:localhost");
		TestInstances instances = instances(dnsOnly, "");
		Instance instance = instances.start("a", tls(dnsOnly, servers("localhost", instances)));
		assertProcessesATask(instances, instance);
	}

	@Test
	void aCertificateForTheDnsNameOnlyIsRefusedWhenTheServerIsDialledByItsAddress() {
		SelfSignedCertificate dnsOnly = certificate("nats-server", "DNS:localhost");
		TestInstances instances = instances(dnsOnly, "");
		Throwable failure = catchThrowable(() -> instances.start("a", tls(dnsOnly, servers("127.0.0.1", instances))));
		assertThat(failure).hasStackTraceContaining("the TLS handshake failed")
			.hasStackTraceContaining("IP address 127.0.0.1")
			.hasStackTraceContaining("DNS:localhost");
	}

	@Test
	void aCertificateForTheAddressOnlyIsAcceptedWhenTheServerIsDialledByThatAddress() {
		SelfSignedCertificate ipOnly = certificate("nats-server", "IP:127.0.0.1");
		TestInstances instances = instances(ipOnly, "");
		Instance instance = instances.start("a", tls(ipOnly, servers("127.0.0.1", instances)));
		assertProcessesATask(instances, instance);
	}

	@Test
	void aCertificateForTheAddressOnlyIsRefusedWhenTheServerIsDialledByNameEvenIfTheNameResolvesToIt() {
		SelfSignedCertificate ipOnly = certificate("nats-server", "IP:127.0.0.1");
		TestInstances instances = instances(ipOnly, "");
		Throwable failure = catchThrowable(() -> instances.start("a", tls(ipOnly, servers("localhost", instances))));
		assertThat(failure).hasStackTraceContaining("the TLS handshake failed")
			.hasStackTraceContaining("localhost")
			.hasStackTraceContaining("IP:127.0.0.1");
	}

	@Test
	void aCertificateWithoutDnsNamesIsRefusedForTheNameItsSubjectCarries() {
		// the JDK matches a name with the subject's CN when a certificate has no DNS name at all
		SelfSignedCertificate ipOnlyNamedLocalhost = certificate("localhost", "IP:127.0.0.1");
		TestInstances instances = instances(ipOnlyNamedLocalhost, "");
		Throwable failure = catchThrowable(
				() -> instances.start("a", tls(ipOnlyNamedLocalhost, servers("localhost", instances))));
		assertThat(failure).hasStackTraceContaining("No DNS subject alternative name in the certificate of 'localhost'")
			.hasStackTraceContaining("IP:127.0.0.1");
	}

	/** The server, by the host given, in {@code tls://} form. */
	private static String servers(String host, TestInstances instances) {
		return "exactlyonce.nats.servers=tls://" + host + ":" + instances.nats().port();
	}

	/** A certificate that goes with the test. */
	private SelfSignedCertificate certificate(String commonName, String subjectAltNames) {
		SelfSignedCertificate certificate = SelfSignedCertificate.create(commonName, subjectAltNames);
		this.resources.add(certificate);
		return certificate;
	}

	private String[] tls(String... properties) {
		return tls(this.certificate, properties);
	}

	private static String[] tls(SelfSignedCertificate trusted, String... properties) {
		List<String> all = new ArrayList<>(List.of(properties));
		all.add("exactlyonce.nats.tls.bundle=nats");
		all.add("spring.ssl.bundle.pem.nats.truststore.certificate=file:" + trusted.certificate());
		// a handshake on a loaded machine can take longer than the default 5 s
		all.add("exactlyonce.nats.connection-timeout=20s");
		return all.toArray(String[]::new);
	}

	private TestInstances instances(String authorization) {
		return instances(this.certificate, authorization);
	}

	private TestInstances instances(SelfSignedCertificate served, String authorization) {
		NatsServerProcess nats = NatsServerProcess.withConfiguration("tls { cert_file: \""
				+ served.certificate() + "\", key_file: \"" + served.privateKey() + "\" }\n"
				+ authorization + "\n");
		this.resources.add(nats);
		nats.start();
		TestInstances instances = new TestInstances(nats);
		this.resources.add(instances);
		return instances;
	}

	private static void assertProcessesATask(TestInstances instances, Instance instance) {
		instance.bean(ExactlyOncePublisher.class)
			.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-secure"), "t-secure");
		await().atMost(Duration.ofSeconds(30))
			.until(() -> instance.bean(IdempotencyStore.class)
				.find("worker:t-secure")
				.filter((record) -> record.state() == RecordState.COMPLETED)
				.isPresent());
		assertThat(instances.ledger().executionsOf("t-secure")).isEqualTo(1);
	}

}
