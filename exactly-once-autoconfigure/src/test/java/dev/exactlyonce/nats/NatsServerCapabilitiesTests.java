package dev.exactlyonce.nats;

import io.nats.client.api.ServerInfo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link NatsServerCapabilities} read from a server's {@code INFO}.
 */
class NatsServerCapabilitiesTests {

	@Test
	void clusteredServerOlderThanTheSafeVersionIsUnsafe() {
		assertThat(capabilities("2.9.10", "faults").isUnsafeCluster()).isTrue();
		assertThat(capabilities("2.10.18", "faults").isUnsafeCluster()).isTrue();
	}

	@Test
	void clusteredServerFromTheSafeVersionOnIsSafe() {
		assertThat(capabilities("2.10.19", "faults").isUnsafeCluster()).isFalse();
		assertThat(capabilities("2.15.1", "faults").isUnsafeCluster()).isFalse();
	}

	@Test
	void singleServerIsSafeWhateverItsVersion() {
		assertThat(capabilities("2.9.10", null).isUnsafeCluster()).isFalse();
	}

	@Test
	void connectionWithoutAnInfoYetIsNotUnsafe() {
		NatsServerCapabilities capabilities = NatsServerCapabilities.of(null);

		assertThat(capabilities.version()).isNull();
		assertThat(capabilities.isUnsafeCluster()).isFalse();
	}

	private static NatsServerCapabilities capabilities(String version, String cluster) {
		String clusterField = (cluster != null) ? ",\"cluster\":\"" + cluster + "\"" : "";
		return NatsServerCapabilities.of(new ServerInfo("INFO {\"version\":\"" + version + "\"" + clusterField + "}"));
	}

}
