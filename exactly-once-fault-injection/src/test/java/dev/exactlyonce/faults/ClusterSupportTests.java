package dev.exactlyonce.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ClusterSupport}: which nats-server versions the short version runs the cluster row on.
 */
class ClusterSupportTests {

	@Test
	void serversBeforeTheSafeVersionLeaveTheClusterRowOutAndSayWhy() {
		assertThat(ClusterSupport.reasonFor("2.9.10")).contains("2.9.10", "older than 2.10.19", "finding 17",
				"NATS_SERVER_BIN");
		assertThat(ClusterSupport.reasonFor("2.10.18")).isNotNull();
	}

	@Test
	void serversFromTheSafeVersionOnRunTheClusterRow() {
		assertThat(ClusterSupport.reasonFor("2.10.19")).isNull();
		assertThat(ClusterSupport.reasonFor("2.15.1")).isNull();
	}

	@Test
	void versionIsReadFromWhatTheBinaryPrints(@TempDir Path directory) throws Exception {
		Path binary = script(directory, "nats-server", "echo 'nats-server: v2.9.10'");

		assertThat(ClusterSupport.versionOf(binary.toString())).isEqualTo("2.9.10");
	}

	@Test
	void binaryThatPrintsNoVersionFailsNamingIt(@TempDir Path directory) throws Exception {
		Path binary = script(directory, "not-nats", "echo 'usage: something else'");

		assertThatIllegalStateException().isThrownBy(() -> ClusterSupport.versionOf(binary.toString()))
			.withMessageContaining(binary.toString())
			.withMessageContaining("usage: something else");
	}

	private static Path script(Path directory, String name, String body) throws Exception {
		Path script = directory.resolve(name);
		Files.writeString(script, "#!/bin/sh\n" + body + "\n");
		Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
		return script;
	}

}
