package dev.exactlyonce.listener;

import java.lang.reflect.Method;

import org.springframework.expression.Expression;

/**
 * One {@link dev.exactlyonce.annotation.ExactlyOnceListener} method with its resolved attributes.
 *
 * @param consumer the durable consumer it listens on
 * @param namespace the store namespace of its keys; until registered, its annotation's or {@code null}
 * ({@link ConsumerSettings#namespaceOf})
 * @param keyExpression the parsed key expression, or {@code null} to use {@code Nats-Msg-Id}
 * @param bean the bean to invoke, already proxied with the exactly-once advice
 * @param method the method, invocable on {@code bean}
 * @param beanName the bean's name, for messages
 * @param transactional whether handler and completion record run in one transaction
 * @param stepsInTransaction whether, in a transactional listener, the steps' {@code DONE} entries
 * are journaled in that transaction
 * @param limit the limit every task runs under, or {@code null}
 * @param limitKeyExpression the parsed key expression within the limit, or {@code null} for one key
 */
public record ListenerEndpoint(String consumer, String namespace, Expression keyExpression, Object bean,
		Method method, String beanName, boolean transactional, boolean stepsInTransaction, String limit,
		Expression limitKeyExpression) {

	/**
	 * A listener whose handler runs outside a transaction of the starter's.
	 * @param consumer the durable consumer it listens on
	 * @param namespace the store namespace of its keys
	 * @param keyExpression the parsed key expression, or {@code null} to use {@code Nats-Msg-Id}
	 * @param bean the bean to invoke, already proxied with the exactly-once advice
	 * @param method the method, invocable on {@code bean}
	 * @param beanName the bean's name, for messages
	 */
	public ListenerEndpoint(String consumer, String namespace, Expression keyExpression, Object bean, Method method,
			String beanName) {
		this(consumer, namespace, keyExpression, bean, method, beanName, false, false, null, null);
	}

	/**
	 * This listener with its keys in another store namespace.
	 * @param storeNamespace the namespace
	 * @return the listener
	 */
	public ListenerEndpoint inNamespace(String storeNamespace) {
		return new ListenerEndpoint(this.consumer, storeNamespace, this.keyExpression, this.bean, this.method,
				this.beanName, this.transactional, this.stepsInTransaction, this.limit, this.limitKeyExpression);
	}

	/**
	 * A description for logs and errors.
	 * @return {@code beanName.method} and the consumer
	 */
	public String describe() {
		return this.beanName + "." + this.method.getName() + " (consumer '" + this.consumer + "')";
	}

}
