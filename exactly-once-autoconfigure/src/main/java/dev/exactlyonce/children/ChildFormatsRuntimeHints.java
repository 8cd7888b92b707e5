package dev.exactlyonce.children;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Reflection for the JSON of child tasks: the {@link ChildTask} a parent's {@code startChild} step
 * journals, and the {@link ChildEnvelope} a child stores for its parent.
 */
class ChildFormatsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ChildTask.class,
				ChildEnvelope.class);
	}

}
