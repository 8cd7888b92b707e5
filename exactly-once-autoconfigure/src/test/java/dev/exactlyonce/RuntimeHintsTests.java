package dev.exactlyonce;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import io.nats.client.Message;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import dev.exactlyonce.actuate.ExactlyOnceDescriptor;
import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.autoconfigure.ExactlyOnceProperties;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.autoconfigure.ReconciliationProperties;
import dev.exactlyonce.listener.ExactlyOnceContext;
import dev.exactlyonce.operations.MonthlyCounts;
import dev.exactlyonce.operations.TaskView;
import dev.exactlyonce.store.IdempotencyRecord;
import dev.exactlyonce.store.OperatorAction;
import dev.exactlyonce.store.StepJournal;
import dev.exactlyonce.store.StepRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs, as ahead-of-time processing finds them: the registrars listed in
 * {@code META-INF/spring/aot.factories} and the {@link ExactlyOnceListener} processor. The
 * classpath resources are listed from the classpath, so a new Lua script, DDL or dashboard file is
 * checked without touching this test. A JVM run in AOT mode does not enforce these hints; only a
 * native image does, and none is built here.
 */
class RuntimeHintsTests {

	private final RuntimeHints hints = registered();

	@Test
	void everyRedisScriptIsAResource() {
		assertEveryResource("dev/exactlyonce/store/redis/*.lua", 6);
	}

	@Test
	void everyJdbcSchemaIsAResource() {
		assertEveryResource("dev/exactlyonce/store/jdbc/*.sql", 3);
	}

	@Test
	void everyDashboardFileIsAResource() {
		assertEveryResource("dev/exactlyonce/dashboard/*", 3);
	}

	@Test
	void storedFormatsAreBound() {
		assertThat(this.hints).matches(RuntimeHintsPredicates.reflection().onType(IdempotencyRecord.class))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(IdempotencyRecord.class, "journal"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(StepJournal.class, "steps"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(StepRecord.class, "result"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(OperatorAction.class, "reason"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(MonthlyCounts.class, "published"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(ChildTask.class, "key"));
		assertThat(invocable("dev.exactlyonce.children.ChildEnvelope", "result")).isTrue();
		assertThat(invocable("dev.exactlyonce.store.SealedJournal$StoredForm", "sealed")).isTrue();
		assertThat(invocable("dev.exactlyonce.store.SealedJournal$Ref", "chunks")).isTrue();
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("dev.exactlyonce.store.StepJournalSerializer"))
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
		assertThat(invocable("dev.exactlyonce.listener.CompletionParking$Parked", "completion")).isTrue();
		assertThat(invocable("dev.exactlyonce.limits.LimitState", "queue")).isTrue();
		assertThat(invocable("dev.exactlyonce.limits.LimitState$Holder", "until")).isTrue();
		assertThat(invocable("dev.exactlyonce.limits.LimitState$Waiter", "since")).isTrue();
		assertThat(invocable("dev.exactlyonce.takeover.InstanceRecord", "tasks")).isTrue();
		assertThat(invocable("dev.exactlyonce.takeover.RunningTask", "token")).isTrue();
	}

	@Test
	void endpointAnswersAreBound() {
		assertThat(this.hints)
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(ExactlyOnceDescriptor.class, "consumers"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(TaskView.EarlierAttempt.class, "unfinishedStep"));
	}

	@Test
	void keyExpressionRootIsReadable() {
		assertThat(invocable("dev.exactlyonce.listener.KeyResolver$KeyRoot", "payload")).isTrue();
	}

	@Test
	void propertiesClassesAreIntrospectable() {
		assertThat(this.hints).matches(RuntimeHintsPredicates.reflection().onType(ExactlyOnceProperties.class))
			.matches(RuntimeHintsPredicates.reflection().onType(ReconciliationProperties.class));
	}

	@Test
	void listenerMethodIsInvocableAndItsPayloadBound() {
		RuntimeHints listenerHints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(listenerHints, Listener.class);
		assertThat(listenerHints).matches(RuntimeHintsPredicates.reflection().onMethodInvocation(Listener.class, "handle"))
			.matches(RuntimeHintsPredicates.reflection().onMethodInvocation(Task.class, "taskId"));
		assertThat(RuntimeHintsPredicates.reflection().onType(ExactlyOnceContext.class)).rejects(listenerHints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Message.class)).rejects(listenerHints);
	}

	private void assertEveryResource(String pattern, int atLeast) {
		List<String> paths = resources(pattern);
		assertThat(paths).hasSizeGreaterThanOrEqualTo(atLeast);
		assertThat(paths).allSatisfy((path) -> assertThat(RuntimeHintsPredicates.resource().forResource(path))
			.as(path)
			.accepts(this.hints));
	}

	private boolean invocable(String className, String method) {
		try {
			return RuntimeHintsPredicates.reflection().onMethodInvocation(className, method).test(this.hints);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> resources(String pattern) {
		try {
			Resource[] found = new PathMatchingResourcePatternResolver().getResources("classpath*:" + pattern);
			String directory = pattern.substring(0, pattern.lastIndexOf('/') + 1);
			return Arrays.stream(found).map((resource) -> directory + resource.getFilename()).toList();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static RuntimeHints registered() {
		RuntimeHints hints = new RuntimeHints();
		ClassLoader classLoader = RuntimeHintsTests.class.getClassLoader();
		AotServices.factories(classLoader).load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, classLoader));
		return hints;
	}

	record Task(String taskId) {
	}

	static class Listener {

		@ExactlyOnceListener(consumer = "tasks")
		public void handle(Task task, ExactlyOnceContext context, Message message) {
		}

	}

}
