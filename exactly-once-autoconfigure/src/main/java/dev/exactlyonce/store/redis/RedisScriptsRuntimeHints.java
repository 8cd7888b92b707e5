package dev.exactlyonce.store.redis;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/** The Lua scripts {@link RedisIdempotencyStore} reads from the classpath. */
class RedisScriptsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("dev/exactlyonce/store/redis/*.lua");
	}

}
