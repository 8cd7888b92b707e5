package dev.exactlyonce.nats;

import io.nats.client.Options;

/**
 * Changes the jnats {@link Options} of the starter's NATS connection: declare one or more as beans
 * (ordered by {@code @Order}) to set what {@code exactlyonce.nats.*} does not cover (ping interval,
 * buffer sizes, a connection listener...) without replacing the {@code Connection} bean. They run after
 * the starter applied its settings (servers, credentials, TLS), so they can change those too; the
 * starter's error listener (which names a refused subject at start-up) and its reader recovery are
 * set after them, so an error listener set here is replaced.
 */
@FunctionalInterface
public interface NatsOptionsCustomizer {

	/**
	 * Customizes the options.
	 * @param builder the builder, with the starter's settings applied
	 */
	void customize(Options.Builder builder);

}
