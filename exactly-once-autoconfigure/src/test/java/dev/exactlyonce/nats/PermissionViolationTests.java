package dev.exactlyonce.nats;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.exactlyonce.nats.PermissionViolation.Operation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The advice for a refused subject names the pattern that fixes every subject of its kind, not the
 * one message's, key's or watcher's subject that happened to be refused, and a refused provisioning
 * request names the worker's way out: provisioning mode validate.
 */
class PermissionViolationTests {

	@ParameterizedTest
	@CsvSource({ "_INBOX.Xy7.12, _INBOX.>",
			"$JS.ACK.TASKS.worker.1.42.42.1764000000000000000.0, $JS.ACK.TASKS.worker.>",
			"$KV.exactly-once-idempotency.worker:t-1, $KV.exactly-once-idempotency.>",
			"$JS.FC.KV_exactly-once-idempotency.abc.1, $JS.FC.KV_exactly-once-idempotency.>",
			"$JS.API.DIRECT.GET.KV_exactly-once-idempotency.$KV.exactly-once-idempotency.worker:t-1, "
					+ "$JS.API.DIRECT.GET.KV_exactly-once-idempotency.>",
			"$JS.API.CONSUMER.CREATE.TASKS.worker.agents.marketing.tasks.>, $JS.API.CONSUMER.CREATE.TASKS.worker.>",
			"$JS.API.CONSUMER.CREATE.KV_exactly-once-idempotency.Ab12Cd.$KV.exactly-once-idempotency.>, "
					+ "$JS.API.CONSUMER.CREATE.KV_exactly-once-idempotency.>",
			"$JS.API.CONSUMER.INFO.KV_EXACTLYONCE_TALLIES.Ab12Cd, $JS.API.CONSUMER.INFO.KV_EXACTLYONCE_TALLIES.>",
			"$JS.API.CONSUMER.INFO.TASKS.worker, $JS.API.CONSUMER.INFO.TASKS.worker",
			"$JS.API.CONSUMER.MSG.NEXT.TASKS.worker, $JS.API.CONSUMER.MSG.NEXT.TASKS.worker",
			"$JS.API.STREAM.INFO.TASKS, $JS.API.STREAM.INFO.TASKS",
			"exactlyonce.instance.cG9kLTA.0b4d6f1e-8a2c-4e55-9a7b-3c1d2e4f5a6b, exactlyonce.instance.>" })
	void theAdviceNamesThePatternForEverySubjectOfTheKind(String refused, String toAllow) {
		PermissionViolation violation = new PermissionViolation(Operation.PUBLISH, refused);

		assertThat(violation.toAllow()).isEqualTo(toAllow);
		assertThat(violation.action()).contains("Add \"" + toAllow + "\" to the publish allow list");
	}

	@ParameterizedTest
	@CsvSource({ "$JS.API.STREAM.CREATE.TASKS, true", "$JS.API.STREAM.UPDATE.DEAD_LETTERS, true",
			"$JS.API.STREAM.CREATE.KV_exactly-once-idempotency, true",
			"$JS.API.CONSUMER.CREATE.TASKS.worker.agents.marketing.tasks.>, true",
			"$JS.API.CONSUMER.CREATE.KV_exactly-once-idempotency.Ab12Cd.$KV.exactly-once-idempotency.>, false",
			"$JS.API.STREAM.INFO.TASKS, false" })
	void aRefusedProvisioningRequestNamesTheValidateMode(String refused, boolean provisioning) {
		PermissionViolation violation = new PermissionViolation(Operation.PUBLISH, refused);

		assertThat(violation.isProvisioning()).isEqualTo(provisioning);
		assertThat(violation.action().contains("exactlyonce.provisioning.mode=validate")).isEqualTo(provisioning);
	}

	@Test
	void aRefusedInboxOfAConnectionWithItsOwnPrefixNamesThatPrefix() {
		PermissionViolation violation = new PermissionViolation(Operation.SUBSCRIBE, "_INBOX_WORKERS.Xy7.12",
				"_INBOX_WORKERS.");

		assertThat(violation.toAllow()).isEqualTo("_INBOX_WORKERS.>");
		assertThat(violation.isStartersOwn()).isTrue();
		assertThat(new PermissionViolation(Operation.SUBSCRIBE, "_INBOX.Xy7.12", "_INBOX_WORKERS.").isStartersOwn())
			.as("another prefix's inbox is not the starter's").isFalse();
	}

}
