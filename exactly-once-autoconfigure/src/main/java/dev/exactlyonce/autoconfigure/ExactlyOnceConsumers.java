package dev.exactlyonce.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerConfiguration;

import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.ProvisioningMode;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties.StreamSpec;
import dev.exactlyonce.listener.ConsumerSettings;
import dev.exactlyonce.provision.JetStreamConfigurations;
import dev.exactlyonce.provision.JetStreamProvisioner;
import dev.exactlyonce.provision.ProvisioningException;

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
		ConsumerSettingsResolver resolver = new ConsumerSettingsResolver(properties);
		properties.getConsumers()
			.forEach((name, spec) -> resolver.resolve(name, JetStreamConfigurations.consumer(name, spec)));
		Map<String, ConsumerSettings> settings = new LinkedHashMap<>();
		if (mode == ProvisioningMode.NONE) {
			properties.getConsumers().forEach((name, spec) -> settings.put(name,
					resolver.resolve(name, serverConfiguration(management, spec.getStream(), name))));
			return new ExactlyOnceConsumers(settings);
		}
		JetStreamProvisioner provisioner = new JetStreamProvisioner(management, mode);
		String deadLetterStream = properties.getDeadLetter().getStream();
		if (deadLetterStream != null && !deadLetterStream.isBlank()) {
			provisioner.provisionStream(deadLetterStream, deadLetterStreamSpec(properties));
		}
		provisioner.provision(properties)
			.forEach((name, info) -> settings.put(name, resolver.resolve(name, info.getConsumerConfiguration())));
		return new ExactlyOnceConsumers(settings);
	}

	private static StreamSpec deadLetterStreamSpec(ExactlyOnceProperties properties) {
		ExactlyOnceProperties.DeadLetter deadLetter = properties.getDeadLetter();
		Set<String> subjects = new LinkedHashSet<>();
		subjects.add(deadLetter.getSubjectPrefix() + ".>");
		properties.getConsumers().values().forEach((spec) -> {
			if (spec.getDeadLetterSubject() != null) {
				subjects.add(spec.getDeadLetterSubject());
			}
		});
		StreamSpec spec = new StreamSpec();
		spec.setSubjects(new ArrayList<>(subjects));
		spec.setMaxAge(deadLetter.getMaxAge());
		spec.setReplicas(deadLetter.getReplicas());
		spec.setDuplicateWindow(Duration.ofMinutes(2));
		return spec;
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
