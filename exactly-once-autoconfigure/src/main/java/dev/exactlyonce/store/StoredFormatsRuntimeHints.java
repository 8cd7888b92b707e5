package dev.exactlyonce.store;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Reflection for the JSON the stores keep, written and read by {@link RecordCodec} and
 * {@link SealedJournal}: records, step journals (and their serializer, which Jackson creates),
 * operator actions and sealed journal references.
 */
class StoredFormatsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), IdempotencyRecord.class,
				StepJournal.class, StepRecord.class, OperatorAction[].class, SealedJournal.StoredForm.class);
		hints.reflection().registerType(StepJournalSerializer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
	}

}
