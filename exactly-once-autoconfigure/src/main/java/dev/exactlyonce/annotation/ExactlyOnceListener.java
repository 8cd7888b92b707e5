package dev.exactlyonce.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

import dev.exactlyonce.listener.ExactlyOnceListenerReflectiveProcessor;

/**
 * Marks a bean method as the handler of a durable JetStream consumer declared under
 * {@code exactlyonce.consumers.<name>}. Each message is claimed in the idempotency store before
 * the method runs, kept alive with working acks while it runs, recorded as completed after it
 * returns and only then acknowledged; a key that was completed before is acknowledged without
 * running the method again.
 * <p>
 * Parameters may be, in any order: the payload (any type the application's JSON mapper can read,
 * or {@code byte[]} / {@code String} for the raw body), {@link dev.exactlyonce.listener.ExactlyOnceContext}
 * and {@link io.nats.client.Message}. The return value, if any, becomes the record's result summary.
 * A direct call of the method outside a delivery runs it without any of the above.
 * <p>
 * Ahead-of-time processing registers the method for reflective invocation and its payload type for
 * JSON binding ({@link ExactlyOnceListenerReflectiveProcessor}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(ExactlyOnceListenerReflectiveProcessor.class)
public @interface ExactlyOnceListener {

	/**
	 * The durable consumer, as declared under {@code exactlyonce.consumers}. Supports
	 * {@code ${...}} placeholders and {@code #{...}} expressions.
	 * @return the consumer name
	 */
	String consumer();

	/**
	 * A SpEL expression computing the idempotency key from {@code payload}, {@code headers} (a map
	 * of first values) and {@code subject}, e.g. {@code payload.taskId + ':' + payload.version}.
	 * When empty, the {@code Nats-Msg-Id} header is the key.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * The namespace that prefixes every key of this listener in the store, so that two consumers of
	 * one subject do not share records. Defaults to {@code exactlyonce.consumers.<consumer>.namespace},
	 * else the consumer name; set to a value other than that property, start-up fails. Prefer the
	 * property: applications that declare the consumer without this listener (running its children,
	 * operating its tasks) read only the property. No {@code :}, whitespace or control characters.
	 * @return the namespace
	 */
	String namespace() default "";

	/**
	 * Whether the starter runs the handler and the completion record in one transaction of the
	 * application's {@code PlatformTransactionManager}: the record is written just before the commit,
	 * so the handler's writes through the JDBC store's {@code DataSource} and the record commit
	 * together or not at all, and the ack follows the commit. Needs {@code exactlyonce.store.type=jdbc}.
	 * @return {@code true} to run handler and completion in one transaction
	 */
	boolean transactional() default false;

	/**
	 * In a transactional listener, whether a durable step's {@code DONE} is journaled in the
	 * handler's transaction (the default: it commits or rolls back with the step's database writes, and
	 * a step whose transaction rolled back is probed or run again), or at once on a connection of its
	 * own ({@code false}: for steps whose work is outside the database, such as a model call or a git
	 * commit, whose results must survive a rollback rather than be paid for again; a database write
	 * inside such a step is then not redone when the transaction rolls back). Ignored unless
	 * {@link #transactional()}.
	 * @return {@code true} to journal steps with the handler's transaction
	 */
	boolean stepsInTransaction() default true;

	/**
	 * The limit every task of this listener runs under, as declared under {@code exactlyonce.limits}
	 * (see docs/limits.md): a task over it waits, holding no thread, ack slot or lease, and runs in
	 * arrival order when a slot or token of its key is free. Empty for none.
	 * @return the limit's name
	 */
	String limit() default "";

	/**
	 * A SpEL expression over {@code payload}, {@code headers} and {@code subject}, like {@link #key()},
	 * computing the key within {@link #limit()} (e.g. {@code payload.service}: at most N deploys of one
	 * service at once). Empty for one key for the whole limit.
	 * @return the limit key expression
	 */
	String limitKey() default "";

}
