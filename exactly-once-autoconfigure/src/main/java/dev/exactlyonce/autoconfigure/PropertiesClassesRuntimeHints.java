package dev.exactlyonce.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Reflection for every properties class {@link UnknownPropertiesCheck} introspects, also those not
 * bound because their auto-configuration is off (Boot registers hints only for bound ones).
 */
class PropertiesClassesRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(UnknownPropertiesCheck.PROPERTIES_CLASSES).registerHints(hints, classLoader);
	}

}
