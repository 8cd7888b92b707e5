package dev.exactlyonce.actuate;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

import dev.exactlyonce.audit.ReconciliationReport;
import dev.exactlyonce.operations.DeadLetterView;
import dev.exactlyonce.operations.MonthlyRow;
import dev.exactlyonce.operations.OperationOutcome;
import dev.exactlyonce.operations.TaskPage;
import dev.exactlyonce.operations.TaskView;

/**
 * Reflection for the JSON the {@code exactlyonce} and {@code exactlyonceops} endpoints answer (and
 * the dashboard reads), including the answers of operations declared as returning {@code Object}, which
 * Actuator cannot find from the method signatures.
 */
class EndpointPayloadsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ExactlyOnceDescriptor.class,
				ReconciliationReport.class, OperationsDescriptor.class, MonthlyRow.class, TaskPage.class,
				TaskView.class, DeadLetterView.class, OperationOutcome.class, SignalAnswer.class);
	}

}
