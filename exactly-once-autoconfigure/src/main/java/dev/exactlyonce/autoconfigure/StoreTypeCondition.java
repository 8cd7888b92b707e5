package dev.exactlyonce.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.ClassMetadata;

import dev.exactlyonce.autoconfigure.StoreProperties.StoreType;

/**
 * Matches the store configuration named by {@code exactlyonce.store.type} (default
 * {@code nats-kv}). A store is used only when named: a classpath change never switches it.
 */
class StoreTypeCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String configurationClass = ((ClassMetadata) metadata).getClassName();
		StoreType required = StoreConfigurations.getType(configurationClass);
		StoreType selected;
		try {
			selected = Binder.get(context.getEnvironment())
				.bind("exactlyonce.store.type", StoreType.class)
				.orElse(StoreType.NATS_KV);
		}
		catch (BindException ex) {
			return ConditionOutcome.noMatch("exactlyonce.store.type is not one of nats-kv, redis, firestore, jdbc, memory");
		}
		return (selected == required) ? ConditionOutcome.match("exactlyonce.store.type is " + selected)
				: ConditionOutcome.noMatch("exactlyonce.store.type is " + selected + ", not " + required);
	}

}
