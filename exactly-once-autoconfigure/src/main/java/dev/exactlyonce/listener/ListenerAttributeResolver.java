package dev.exactlyonce.listener;

import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/**
 * Resolves string attributes of {@link dev.exactlyonce.annotation.ExactlyOnceListener}: first
 * {@code ${...}} placeholders, then {@code #{...}} bean expressions.
 */
final class ListenerAttributeResolver {

	private final ConfigurableBeanFactory beanFactory;

	private final BeanExpressionContext expressionContext;

	ListenerAttributeResolver(ConfigurableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.expressionContext = new BeanExpressionContext(beanFactory, null);
	}

	String resolve(String value) {
		if (value == null || value.isEmpty()) {
			return value;
		}
		String placeholdersResolved = this.beanFactory.resolveEmbeddedValue(value);
		BeanExpressionResolver expressions = this.beanFactory.getBeanExpressionResolver();
		if (expressions == null || placeholdersResolved == null) {
			return placeholdersResolved;
		}
		Object evaluated = expressions.evaluate(placeholdersResolved, this.expressionContext);
		return (evaluated != null) ? evaluated.toString() : null;
	}

}
