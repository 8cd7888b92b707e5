package dev.exactlyonce.listener;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Reflection for what the pipeline reads reflectively besides the listener methods (see
 * {@link ExactlyOnceListenerReflectiveProcessor}): the root object of key expressions and the JSON of
 * a parked completion.
 */
class ListenerRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), KeyResolver.KeyRoot.class,
				CompletionParking.Parked.class);
	}

}
