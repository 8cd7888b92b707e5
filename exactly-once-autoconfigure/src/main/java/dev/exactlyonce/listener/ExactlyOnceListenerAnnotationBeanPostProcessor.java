package dev.exactlyonce.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ReflectionUtils;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.config.ExactlyOnceConfigurationException;
import dev.exactlyonce.store.StoreNamespaces;

/**
 * Finds {@link ExactlyOnceListener} methods, wraps their beans in a proxy carrying the
 * exactly-once advice (outermost, before any existing advice such as transactions), and registers
 * one {@link ListenerEndpoint} per method with the {@link ExactlyOnceListenerRegistry} once all
 * singletons exist. The advice's collaborators are looked up on first use, so this post-processor
 * does not force the store or the connection to be created early.
 */
public class ExactlyOnceListenerAnnotationBeanPostProcessor extends AbstractAdvisingBeanPostProcessor
		implements BeanFactoryAware, SmartInitializingSingleton {

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final List<ListenerEndpoint> endpoints = new ArrayList<>();

	private ConfigurableBeanFactory beanFactory;

	private ListenerAttributeResolver attributes;

	private volatile MethodInterceptor interceptor;

	/** Creates the post-processor. */
	public ExactlyOnceListenerAnnotationBeanPostProcessor() {
		setProxyTargetClass(true);
		setBeforeExistingAdvisors(true);
		this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, ExactlyOnceListener.class, true),
				(MethodInterceptor) (invocation) -> interceptor().invoke(invocation));
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (ConfigurableBeanFactory) beanFactory;
		this.attributes = new ListenerAttributeResolver(this.beanFactory);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Object result = super.postProcessAfterInitialization(bean, beanName);
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		Map<Method, ExactlyOnceListener> annotated = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<ExactlyOnceListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, ExactlyOnceListener.class));
		annotated.forEach((method, annotation) -> this.endpoints.add(endpoint(result, beanName, method, annotation)));
		return result;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ExactlyOnceListenerRegistry registry = this.beanFactory.getBean(ExactlyOnceListenerRegistry.class);
		this.endpoints.forEach(registry::register);
		this.endpoints.clear();
	}

	private ListenerEndpoint endpoint(Object bean, String beanName, Method method, ExactlyOnceListener annotation) {
		checkInterceptable(beanName, method);
		if (method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
			throw new ExactlyOnceConfigurationException("@ExactlyOnceListener method " + method
					+ " returns a primitive, but a skipped duplicate returns null", "Return void or an object.");
		}
		String consumer = this.attributes.resolve(annotation.consumer());
		if (consumer == null || consumer.isBlank()) {
			throw new ExactlyOnceConfigurationException("@ExactlyOnceListener method " + method + " names no consumer",
					"Set consumer = \"<name>\" to a consumer declared under exactlyonce.consumers.");
		}
		String namespace = this.attributes.resolve(annotation.namespace());
		if (namespace != null && !namespace.isEmpty()) {
			StoreNamespaces.check(namespace, "the namespace of @ExactlyOnceListener on " + beanName + "."
					+ method.getName() + " (consumer '" + consumer + "')");
		}
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		ReflectionUtils.makeAccessible(invocable);
		return new ListenerEndpoint(consumer, (namespace == null || namespace.isEmpty()) ? null : namespace,
				keyExpression(method, this.attributes.resolve(annotation.key())), bean, invocable, beanName,
				annotation.transactional(), annotation.stepsInTransaction(), limit(annotation),
				keyExpression(method, this.attributes.resolve(annotation.limitKey())));
	}

	private String limit(ExactlyOnceListener annotation) {
		String limit = this.attributes.resolve(annotation.limit());
		return (limit == null || limit.isEmpty()) ? null : limit;
	}

	/**
	 * The proxy cannot intercept a final, private or static method: it would run with no claim, no
	 * completion record and no ack.
	 */
	private static void checkInterceptable(String beanName, Method method) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isStatic(modifiers) ? "static" : Modifier.isPrivate(modifiers) ? "private"
				: Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new ExactlyOnceConfigurationException("@ExactlyOnceListener method " + method + " of bean '"
					+ beanName + "' is " + problem + ": the exactly-once proxy cannot intercept it, so it would run "
					+ "with no claim, no completion record and no ack",
					"Make it non-final and non-private (and not static).");
		}
	}

	private Expression keyExpression(Method method, String key) {
		if (key == null || key.isEmpty()) {
			return null;
		}
		try {
			return this.parser.parseExpression(key);
		}
		catch (ParseException ex) {
			throw new ExactlyOnceConfigurationException("Key expression '" + key + "' of @ExactlyOnceListener method "
					+ method + " does not parse: " + ex.getMessage(), "Correct the key expression: SpEL over payload, "
							+ "headers and subject, e.g. key = \"payload.taskId\".", ex);
		}
	}

	private MethodInterceptor interceptor() {
		MethodInterceptor resolved = this.interceptor;
		if (resolved == null) {
			resolved = this.beanFactory.getBean(ExactlyOnceListenerRegistry.class).interceptor();
			this.interceptor = resolved;
		}
		return resolved;
	}

}
