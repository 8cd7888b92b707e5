package dev.exactlyonce.autoconfigure;

import java.time.Duration;

import io.nats.client.Connection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.config.DurationText;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.listener.ExactlyOnceListenerRegistry;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.takeover.InstancePresence;
import dev.exactlyonce.takeover.RunningTasks;

/**
 * Lets a restarted instance take over at once the tasks its crashed predecessor (same
 * {@code exactlyonce.instance-id}) left, when {@code exactlyonce.takeover.enabled=true}.
 */
@AutoConfiguration(after = ExactlyOnceAutoConfiguration.class)
@ConditionalOnBean({ ExactlyOnceListenerRegistry.class, IdempotencyStore.class, Connection.class })
@ConditionalOnBooleanProperty(name = "exactlyonce.takeover.enabled")
public final class ExactlyOnceTakeoverAutoConfiguration {

	private static final String DISABLE = "exactlyonce.takeover.enabled=false";

	@Bean
	@ConditionalOnMissingBean
	RunningTasks exactlyOnceRunningTasks(ExactlyOnceProperties properties,
			ObjectProvider<ExactlyOnceListenerRegistry> registry) {
		return new RunningTasks(explicitInstanceId(properties),
				(consumer) -> registry.getObject().namespace(consumer).orElse(consumer));
	}

	@Bean
	@ConditionalOnMissingBean
	InstancePresence exactlyOnceInstancePresence(Connection connection, ExactlyOnceProperties properties,
			IdempotencyStore store, RunningTasks tasks) {
		JetStreamRequirement.check(connection);
		String instanceId = explicitInstanceId(properties);
		Duration silence = silence(properties);
		try {
			return StartupRetry.call("Opening the instances bucket", connection,
					() -> InstancePresence.open(connection, instanceId, properties.getTakeover().getBucket(),
							properties.getNats().getRequestTimeout(), silence,
							properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE, store, tasks));
		}
		catch (ExactlyOnceConfigurationException ex) {
			if (ex.getAction().contains(DISABLE)) {
				throw ex;
			}
			throw new ExactlyOnceConfigurationException(ex.getProblem(), ex.getAction() + " Or set " + DISABLE
					+ " (a restarted instance then resumes its predecessor's tasks at their redelivery, after the ack wait).",
					ex.getCause());
		}
	}

	/**
	 * The silence: the configured one, else the one derived from the NATS timings; a negative one, or
	 * one that outlasts a dead process's record in the bucket (nothing would ever be taken over),
	 * fails start-up.
	 */
	private static Duration silence(ExactlyOnceProperties properties) {
		Duration silence = properties.getTakeover().getSilence();
		if (silence != null) {
			return checked(silence, "exactlyonce.takeover.silence is " + silence,
					"Set exactlyonce.takeover.silence to 0s or more and below " + DurationText.of(InstancePresence.RECORD_TTL)
							+ " (0s only where two processes never run with one instance id at the same time), or "
							+ "remove it for the default derived from the NATS timings (15 s with the defaults).");
		}
		NatsProperties nats = properties.getNats();
		Duration derived = InstancePresence.defaultSilence(nats.getReconnectWait(), nats.getRequestTimeout());
		return checked(derived, "exactlyonce.takeover.silence is unset, so twice exactlyonce.nats.reconnect-wait ("
				+ DurationText.of(nats.getReconnectWait()) + ") + 500ms + exactlyonce.nats.request-timeout ("
				+ DurationText.of(nats.getRequestTimeout()) + "): " + DurationText.of(derived),
				"Set exactlyonce.nats.reconnect-wait and exactlyonce.nats.request-timeout to 0s or more and shorter, "
						+ "or set exactlyonce.takeover.silence (0s or more and below "
						+ DurationText.of(InstancePresence.RECORD_TTL) + ").");
	}

	private static Duration checked(Duration silence, String problem, String action) {
		if (silence.isNegative()) {
			throw new ExactlyOnceConfigurationException(problem
					+ ": how long a dead process's record must have gone unwritten cannot be negative", action);
		}
		if (silence.compareTo(InstancePresence.RECORD_TTL) >= 0) {
			throw new ExactlyOnceConfigurationException(problem + ", but a dead process's record expires from the "
					+ "instances bucket " + DurationText.of(InstancePresence.RECORD_TTL) + " after its last write: it is "
					+ "never seen silent that long, and nothing would ever be taken over", action + " Or set " + DISABLE
					+ ".");
		}
		return silence;
	}

	/**
	 * The instance id a takeover needs: set explicitly, since the default (host name and process id)
	 * can be the same in two live replicas (containers often run as process 1), and a replica would
	 * then see its twin's tasks as its predecessor's.
	 */
	private static String explicitInstanceId(ExactlyOnceProperties properties) {
		if (properties.getInstanceId() == null || properties.getInstanceId().isBlank()) {
			throw new ExactlyOnceConfigurationException("exactlyonce.takeover.enabled=true needs exactlyonce.instance-id "
					+ "set explicitly (its default, host name and process id, can be the same in two live replicas)",
					"Set exactlyonce.instance-id to a name each replica has alone and a restarted process of it keeps "
							+ "(in Kubernetes, the pod name: ${HOSTNAME}; docs/kubernetes.md), or set " + DISABLE + ".");
		}
		return properties.getInstanceId();
	}

}
