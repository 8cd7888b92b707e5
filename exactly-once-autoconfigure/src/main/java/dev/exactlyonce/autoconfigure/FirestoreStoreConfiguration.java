package dev.exactlyonce.autoconfigure;

import com.google.cloud.firestore.Firestore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import dev.exactlyonce.store.ClaimRules;
import dev.exactlyonce.store.IdempotencyStore;
import dev.exactlyonce.store.firestore.FirestoreIdempotencyStore;

/**
 * The Firestore store, only when named, on the application's {@link Firestore} client (the one
 * Spring Cloud GCP's {@code GcpFirestoreAutoConfiguration} creates, or the application's own).
 * Every call waits at most {@code exactlyonce.store.firestore.timeout}, which must be below the lease.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Firestore.class)
@ConditionalOnMissingBean(IdempotencyStore.class)
@ConditionalOnSingleCandidate(Firestore.class)
@Conditional(StoreTypeCondition.class)
class FirestoreStoreConfiguration {

	@Bean
	FirestoreIdempotencyStore firestoreIdempotencyStore(Firestore firestore, ExactlyOnceProperties properties,
			ClaimRules rules) {
		StoreProperties.Firestore settings = properties.getStore().getFirestore();
		StoreCallTimeouts.requireBelowLease("exactlyonce.store.firestore.timeout", settings.getTimeout(),
				properties.getStore().getLease(), "exactlyonce.store.firestore.timeout");
		return new FirestoreIdempotencyStore(firestore, settings.getCollection(), rules, settings.getTimeout());
	}

}
