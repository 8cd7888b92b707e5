package dev.exactlyonce.store.jdbc;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/** The DDL scripts {@link JdbcRecordTable} reads from the classpath, one per database. */
class JdbcSchemaRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("dev/exactlyonce/store/jdbc/schema-*.sql");
	}

}
