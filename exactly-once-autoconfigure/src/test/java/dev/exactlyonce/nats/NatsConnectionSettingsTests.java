package dev.exactlyonce.nats;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The connection settings carry credentials; their text form, which ends up in logs and failure
 * reports when anything prints it, does not. A reply inbox prefix is a literal subject prefix.
 */
class NatsConnectionSettingsTests {

	@Test
	void textFormLeavesOutPasswordTokenAndUserInfo() {
		NatsConnectionSettings settings = new NatsConnectionSettings(
				List.of("nats://alice:url-secret@nats-1:4222", "nats://nats-2:4222"), "worker", "alice",
				"password-secret", "token-secret", Path.of("/etc/nats/worker.creds"), null, Duration.ofSeconds(5),
				Duration.ofSeconds(2), false, true, null, "exactlyonce.nats.servers");

		assertThat(settings.toString()).contains("nats-1:4222", "nats-2:4222", "worker", "alice")
			.doesNotContain("password-secret", "token-secret", "url-secret");
	}

	@ParameterizedTest
	@CsvSource({ "_INBOX_WORKERS, _INBOX_WORKERS.", "_INBOX_WORKERS., _INBOX_WORKERS.", "tenant-a.inbox, tenant-a.inbox." })
	void anInboxPrefixIsKeptWithItsTrailingDot(String configured, String kept) {
		assertThat(settingsWithInboxPrefix(configured).inboxPrefix()).isEqualTo(kept);
	}

	@ParameterizedTest
	@ValueSource(strings = { "_INBOX.>", "workers.*", "two words", "a..b", ".leading", "" })
	void anInboxPrefixThatIsNoLiteralSubjectPrefixFailsNamingTheProperty(String configured) {
		assertThatExceptionOfType(ExactlyOnceConfigurationException.class)
			.isThrownBy(() -> settingsWithInboxPrefix(configured))
			.withMessageContaining("exactlyonce.nats.inbox-prefix")
			.satisfies((failure) -> assertThat(failure.getAction()).contains("_INBOX_WORKERS"));
	}

	private static NatsConnectionSettings settingsWithInboxPrefix(String prefix) {
		return new NatsConnectionSettings(List.of("nats://nats-1:4222"), "worker", null, null, null, null, null,
				Duration.ofSeconds(5), Duration.ofSeconds(2), false, true, prefix, "exactlyonce.nats.servers");
	}

}
