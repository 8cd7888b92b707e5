package dev.exactlyonce.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a Spring test's application context its own {@code nats-server} with JetStream, on a free
 * loopback port with a temporary store directory, and points {@code exactlyonce.nats.servers} at it.
 * The server starts with the context and stops after it closed (after its listeners stopped and its
 * NATS connection closed), so nothing logs errors about a server gone too early; tests whose contexts
 * Spring caches and shares share its server too. The server is a bean of the context
 * ({@link NatsServerProcess}: {@code pause()}, {@code restart()} ...). The {@code nats-server} binary
 * is found as {@link NatsServerProcess} finds it ({@code NATS_SERVER_BIN}, {@code PATH},
 * {@code /usr/sbin}). It works with Spring's test support ({@code @SpringBootTest} or any annotation
 * that brings the {@code SpringExtension}); without it the test fails at once saying so.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EmbeddedNatsCheck.class)
public @interface EmbeddedNats {

}
