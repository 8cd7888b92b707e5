package dev.exactlyonce.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;

import io.nats.client.Message;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * Registers an {@link dev.exactlyonce.annotation.ExactlyOnceListener} method for reflective
 * invocation, as the listener container calls it, and binding hints for its payload parameter, which
 * the application's JSON mapper reads and key expressions navigate.
 */
public class ExactlyOnceListenerReflectiveProcessor extends SimpleReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	protected void registerMethodHint(ReflectionHints hints, Method method) {
		super.registerMethodHint(hints, method);
		for (Parameter parameter : method.getParameters()) {
			if (parameter.getType() != ExactlyOnceContext.class && parameter.getType() != Message.class) {
				this.bindings.registerReflectionHints(hints, parameter.getParameterizedType());
			}
		}
	}

}
