package dev.exactlyonce.autoconfigure;

import io.nats.client.Connection;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.provision.ProvisioningMode;
import dev.exactlyonce.store.natskv.NatsKvBucketProvisioner;
import dev.exactlyonce.store.natskv.NatsKvIdempotencyStore;

/**
 * The NATS KV store: the default, needing no infrastructure beyond the NATS server.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(IdempotencyStore.class)
@Conditional(StoreTypeCondition.class)
class NatsKvStoreConfiguration {

	@Bean
	NatsKvIdempotencyStore natsKvIdempotencyStore(Connection connection, ExactlyOnceProperties properties,
			ClaimRules rules) {
		JetStreamRequirement.check(connection);
		NatsKvBucketProvisioner provisioner = new NatsKvBucketProvisioner(connection,
				properties.getNats().getRequestTimeout(),
				properties.getProvisioning().getMode() == ProvisioningMode.CREATE_OR_UPDATE);
		return StartupRetry.call("Provisioning the idempotency bucket", connection,
				() -> provisioner.provisionStore(properties.getStore().toBucketSpec(properties.getWaits().keptLonger()), rules,
						connection.getServerInfo().getMaxPayload()));
	}

}
