package dev.exactlyonce.dashboard;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/** The dashboard's static files, which {@link DashboardResources} serves from the classpath. */
class DashboardRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("dev/exactlyonce/dashboard/*");
	}

}
