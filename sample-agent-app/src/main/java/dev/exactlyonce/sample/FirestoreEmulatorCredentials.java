package dev.exactlyonce.sample;

import com.google.api.gax.core.CredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Google's Firestore emulator needs no credentials: without this, Spring Cloud GCP looks for
 * Application Default Credentials and warns when there are none.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty("spring.cloud.gcp.firestore.emulator.enabled")
class FirestoreEmulatorCredentials {

	@Bean
	CredentialsProvider googleCredentials() {
		return NoCredentialsProvider.create();
	}

}
