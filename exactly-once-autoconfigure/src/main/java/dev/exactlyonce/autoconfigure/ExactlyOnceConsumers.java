package dev.exactlyonce.autoconfigure;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerConfiguration;

import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.provision.JetStreamConfigurations;
import dev.exactlyonce.provision.JetStreamDeclarations;
import dev.exactlyonce.provision.JetStreamProvisioner;
import dev.exactlyonce.provision.ProvisioningException;
import dev.exactlyonce.provision.ProvisioningMode;

/**
 * The declared consumers after provisioning, each resolved against what the server reports and
 * validated.
 *
 * @param settings the settings of every declared consumer, by durable name
 */
public record ExactlyOnceConsumers(Map<String, ConsumerSettings> settings) {

	/**
	 * Validates each declared consumer, provisions the declared streams (and the dead-letter
	 * stream) and consumers per {@code exactlyonce.provisioning.mode}, then resolves each consumer
	 * against what the server reports and validates it again.
	 * @param management JetStream management of the NATS connection
	 * @param properties the declarations
	 * @return the consumers
	 */
	public static ExactlyOnceConsumers provision(JetStreamManagement management, ExactlyOnceProperties properties) {
		ProvisioningMode mode = properties.getProvisioning().getMode();
		JetStreamDeclarations declarations = properties.toJetStreamDeclarations();
		ConsumerSettingsResolver resolver = new ConsumerSettingsResolver(properties);
		declarations.consumers()
			.forEach((consumer) -> resolver.validate(consumer.name(), JetStreamConfigurations.consumer(consumer)));
		Map<String, ConsumerSettings> settings = new LinkedHashMap<>();
		if (mode == ProvisioningMode.NONE) {
			declarations.consumers().forEach((consumer) -> settings.put(consumer.name(), resolver
				.resolve(consumer.name(), serverConfiguration(management, consumer.stream(), consumer.name()))));
			return new ExactlyOnceConsumers(settings);
		}
		new JetStreamProvisioner(management, mode).provision(declarations)
			.forEach((name, info) -> settings.put(name, resolver.resolve(name, info.getConsumerConfiguration())));
		return new ExactlyOnceConsumers(settings);
	}

	private static ConsumerConfiguration serverConfiguration(JetStreamManagement management, String stream,
			String name) {
		try {
			return management.getConsumerInfo(stream, name).getConsumerConfiguration();
		}
		catch (IOException | JetStreamApiException ex) {
			throw new ProvisioningException("Consumer '" + name + "' on stream '" + stream
					+ "' could not be read and exactlyonce.provisioning.mode is none: " + ex.getMessage()
					+ ". Create it on the server or set exactlyonce.provisioning.mode=create-or-update.", ex);
		}
	}

}
