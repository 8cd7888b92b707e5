package dev.exactlyonce.autoconfigure;

import io.nats.client.Connection;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.nats.CredentialRedactor;

/**
 * Fails start-up at once, with the fix, when the NATS server runs without JetStream: otherwise
 * the first stream or bucket request times out with a message that names neither.
 */
final class JetStreamRequirement {

	private JetStreamRequirement() {
	}

	static void check(Connection connection) {
		if (connection.getServerInfo() == null || connection.getServerInfo().isJetStreamAvailable()) {
			return;
		}
		throw new ExactlyOnceConfigurationException("JetStream is not enabled on the NATS server at "
				+ CredentialRedactor.withoutUserInfo(String.valueOf(connection.getConnectedUrl()))
				+ " (exactlyonce.nats.servers): streams, consumers and the NATS KV store need it",
				"Start nats-server with JetStream enabled (nats-server -js -sd <store dir>, or 'jetstream: enabled' "
						+ "in its configuration file), or point exactlyonce.nats.servers at a server that has it.");
	}

}
