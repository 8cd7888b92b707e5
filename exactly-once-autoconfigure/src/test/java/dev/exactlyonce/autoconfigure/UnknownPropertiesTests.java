package dev.exactlyonce.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import dev.exactlyonce.config.ExactlyOnceConfigurationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A key under {@code exactlyonce.*} that binds to nothing fails start-up, naming the key, where it
 * was set and the closest valid name; every documented key stays valid.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertiesTests extends NatsContextRunnerTestSupport {

	private static final Path SAMPLE_RESOURCES = Path.of("../sample-agent-app/src/main/resources");

	@Test
	void misspelledKeyInsideAConsumerFailsStartUpWithTheClosestValidName() {
		assertStartupError(List.of("exactlyonce.streams.TYPO.subjects=typo.>",
				"exactlyonce.consumers.typo-worker.stream=TYPO", "exactlyonce.consumers.typo-worker.ack-wiat=5m"),
				"exactlyonce.consumers.typo-worker.ack-wiat",
				"did you mean exactlyonce.consumers.typo-worker.ack-wait?");
	}

	@Test
	void misspelledKeyInsideAStreamFailsStartUp() {
		assertStartupError(List.of("exactlyonce.streams.TYPO.subjects=typo.>",
				"exactlyonce.streams.TYPO.duplicate-windw=2m"), "exactlyonce.streams.TYPO.duplicate-windw",
				"did you mean exactlyonce.streams.TYPO.duplicate-window?");
	}

	@Test
	void misspelledTopLevelGroupFailsStartUp() {
		assertStartupError(List.of("exactlyonce.stor.type=memory"), "exactlyonce.stor.type",
				"did you mean exactlyonce.store.type?");
	}

	@Test
	void misspelledStoreSettingFailsStartUp() {
		assertStartupError(List.of("exactlyonce.store.redis.key-prefx=tasks:"), "exactlyonce.store.redis.key-prefx",
				"did you mean exactlyonce.store.redis.key-prefix?");
	}

	@Test
	void misspelledJdbcStoreSettingFailsStartUp() {
		assertStartupError(List.of("exactlyonce.store.jdbc.table-nme=claims"), "exactlyonce.store.jdbc.table-nme",
				"did you mean exactlyonce.store.jdbc.table-name?");
	}

	@Test
	void aKeyOfAnotherGroupPutUnderAConsumerNamesWhereItBelongs() {
		assertStartupError(List.of("exactlyonce.streams.TYPO.subjects=typo.>",
				"exactlyonce.consumers.typo-worker.stream=TYPO", "exactlyonce.consumers.typo-worker.pipelined=true"),
				"exactlyonce.consumers.typo-worker.pipelined", "did you mean exactlyonce.listener.pipelined?");
	}

	@Test
	void keyFarFromAnyValidNameListsTheValidNames() {
		assertStartupError(List.of("exactlyonce.store.flavour=strong"), "exactlyonce.store.flavour",
				"valid keys of exactlyonce.store: completed-ttl, firestore, jdbc, lease, nats-kv, redis, "
						+ "result-summary-max-length, type");
	}

	@Test
	void misspelledKeyInAFileIsReportedWithFileAndLine() {
		this.runner.withInitializer(new ConfigDataApplicationContextInitializer())
			.withPropertyValues("spring.config.location=classpath:unknown-properties/ack-wiat.yml",
					"exactlyonce.nats.servers=" + nats.url())
			.run((context) -> {
				ExactlyOnceConfigurationException error = startupError(context.getStartupFailure());
				assertThat(error.getProblem()).contains("exactlyonce.consumers.typo-worker.ack-wiat "
						+ "(class path resource [unknown-properties/ack-wiat.yml] - 8:17)",
						"did you mean exactlyonce.consumers.typo-worker.ack-wait?");
				assertThat(new ExactlyOnceFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
					.contains("Correct or remove");
			});
	}

	@Test
	void relaxedFormsIndexesAndBracketedMapKeysAreValid() {
		assertThatNoException().isThrownBy(() -> check(new MapPropertySource("test",
				Map.of("exactlyonce.consumers.worker.ackWait", "1m", "exactlyonce.consumers.worker.max_deliver", "3",
						"exactlyonce.consumers.worker.BACKOFF[0]", "1s", "exactlyonce.consumers[my.worker].stream",
						"TASKS", "exactlyonce.nats.servers[1]", "nats://b:4222", "exactlyonce.store.natsKv.bucket",
						"b", "exactlyonce.consumers.worker.non-retryable-exceptions[0]",
						"java.lang.IllegalArgumentException", "exactlyonce.reconciliation.max-sequences", "10"))));
	}

	@Test
	void valueWithNestedKeysIsReported() {
		assertThatCheckFails(Map.of("exactlyonce.store.type.name", "redis"), "exactlyonce.store.type.name",
				"exactlyonce.store.type takes a value, not nested keys");
	}

	@Test
	void environmentVariablesInEveryBindableFormAreValid(CapturedOutput output) {
		check(new SystemEnvironmentPropertySource("test-systemEnvironment",
				Map.of("EXACTLYONCE_CONSUMERS_WORKER_ACK_WAIT", "1m", "EXACTLYONCE_CONSUMERS_WORKER_MAXDELIVER", "3",
						"EXACTLYONCE_CONSUMERS_WORKER_BACKOFF_0", "1s", "EXACTLYONCE_STORE_NATS_KV_BUCKET", "b",
						"EXACTLYONCE_DEADLETTER_STREAM", "DL", "EXACTLYONCE_NATS_SERVERS_0", "nats://a:4222")));
		assertThat(output).doesNotContain("EXACTLYONCE_");
	}

	@Test
	void misspelledEnvironmentVariableIsLoggedWithTheClosestValidNameButDoesNotStopStartUp(CapturedOutput output) {
		check(new SystemEnvironmentPropertySource("test-systemEnvironment",
				Map.of("EXACTLYONCE_CONSUMERS_WORKER_ACK_WIAT", "5m")));
		assertThat(output).contains("EXACTLYONCE_CONSUMERS_WORKER_ACK_WIAT")
			.contains("did you mean EXACTLYONCE_CONSUMERS_WORKER_ACKWAIT?");
	}

	@Test
	void everyKeyOfTheSampleApplicationIsValid() throws IOException {
		YamlPropertySourceLoader loader = new YamlPropertySourceLoader();
		try (var files = Files.list(SAMPLE_RESOURCES)) {
			List<Path> yamls = files.filter((file) -> file.getFileName().toString().matches("application.*\\.yml"))
				.toList();
			assertThat(yamls).as("the sample's application*.yml files")
				.contains(SAMPLE_RESOURCES.resolve("application.yml"), SAMPLE_RESOURCES.resolve("application-jdbc.yml"));
			for (Path yaml : yamls) {
				for (PropertySource<?> source : loader.load(yaml.toString(), new FileSystemResource(yaml))) {
					assertThatNoException().as(yaml.toString()).isThrownBy(() -> check(source));
				}
			}
		}
	}

	@Test
	void everyKeyOfThePropertyReferenceIsValid() throws IOException {
		Map<String, Object> documented = new LinkedHashMap<>();
		// keys only: a value that is not text is not checked against an enum's constants
		documentedPropertyReference().forEach((name) -> documented.put(name, 1));
		assertThat(documented).containsKeys("exactlyonce.consumers.worker.ack-wait",
				"exactlyonce.streams.TASKS.duplicate-window", "exactlyonce.nats.tls.bundle",
				"exactlyonce.nats.credentials-file", "exactlyonce.reconciliation.max-sequences",
				"exactlyonce.store.redis.key-prefix");
		assertThatNoException().isThrownBy(() -> check(new MapPropertySource("docs/properties.md", documented)));
	}

	@Test
	void everyExactlyOncePropertiesClassIsKnownToTheCheck() {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		List<Class<?>> underExactlyOnce = new ArrayList<>();
		for (BeanDefinition candidate : scanner.findCandidateComponents("dev.exactlyonce")) {
			Class<?> type = ClassUtils.resolveClassName(candidate.getBeanClassName(), null);
			ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
			String prefix = annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix();
			if (prefix.equals("exactlyonce") || prefix.startsWith("exactlyonce.")) {
				underExactlyOnce.add(type);
			}
		}
		assertThat(UnknownPropertiesCheck.PROPERTIES_CLASSES).containsExactlyInAnyOrderElementsOf(underExactlyOnce);
	}

	@Test
	void misspelledStoreTypeFailsStartUpNamingPropertyValueAcceptedValuesAndTheClosest() {
		this.runner.withPropertyValues("exactlyonce.nats.servers=" + nats.url(), "exactlyonce.store.type=natskv")
			.run((context) -> {
				FailureAnalysis analysis = new ExactlyOnceFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).as("failure analysis").isNotNull();
				assertThat(analysis.getDescription()).startsWith("Invalid values under exactlyonce.*")
					.contains("exactlyonce.store.type=natskv (", "): accepted values are nats-kv, redis, firestore, "
							+ "jdbc, memory; did you mean nats-kv?");
				assertThat(analysis.getAction())
					.isEqualTo("Set each of these properties to one of its accepted values (docs/properties.md lists them)");
			});
	}

	@Test
	void invalidValueOfAnEnumInsideAConsumerOrStreamFailsStartUp() {
		assertThatCheckFails(Map.of("exactlyonce.consumers.worker.on-abandoned", "deadletter",
				"exactlyonce.streams.TASKS.retention", "work-queue"),
				"exactlyonce.consumers.worker.on-abandoned=deadletter (",
				"): accepted values are retry, dead-letter; did you mean dead-letter?",
				"exactlyonce.streams.TASKS.retention=work-queue (", "did you mean workqueue?");
	}

	@Test
	void enumValuesInAnyCaseWithDashesOrUnderscoresAreValid() {
		assertThatNoException().isThrownBy(() -> check(new MapPropertySource("test",
				Map.of("exactlyonce.store.type", "NATS_KV", "exactlyonce.consumers.worker.on-abandoned", "Dead-Letter",
						"exactlyonce.provisioning.mode", "create_or_update"))));
	}

	@Test
	void invalidEnumValueInAnEnvironmentVariableFailsStartUp() {
		assertThatThrownBy(() -> check(new SystemEnvironmentPropertySource("test-systemEnvironment",
				Map.of("EXACTLYONCE_STORE_TYPE", "natskv"))))
			.isInstanceOf(ExactlyOnceConfigurationException.class)
			.hasMessageContaining("EXACTLYONCE_STORE_TYPE=natskv (")
			.hasMessageContaining("did you mean nats-kv?");
	}

	private void assertStartupError(List<String> properties, String... messageParts) {
		List<String> all = new ArrayList<>(properties);
		all.add("exactlyonce.nats.servers=" + nats.url());
		this.runner.withPropertyValues(all.toArray(String[]::new)).run((context) -> {
			ExactlyOnceConfigurationException error = startupError(context.getStartupFailure());
			assertThat(error.getProblem()).contains(messageParts);
		});
	}

	private static void assertThatCheckFails(Map<String, Object> properties, String... messageParts) {
		try {
			check(new MapPropertySource("test", properties));
		}
		catch (ExactlyOnceConfigurationException ex) {
			assertThat(ex.getProblem()).contains(messageParts);
			return;
		}
		throw new AssertionError("No ExactlyOnceConfigurationException for " + properties.keySet());
	}

	private static void check(PropertySource<?> source) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().addFirst(source);
		new UnknownPropertiesCheck(environment).check();
	}

	private static ExactlyOnceConfigurationException startupError(Throwable failure) {
		assertThat(failure).as("start-up failure").isNotNull();
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (candidate instanceof ExactlyOnceConfigurationException error) {
				return error;
			}
		}
		throw new AssertionError("No ExactlyOnceConfigurationException in the start-up failure", failure);
	}

	/**
	 * The keys of the property tables in docs/properties.md: rows under "Streams (`exactlyonce.streams.<NAME>.*`)"
	 * and "Consumers (...)" are relative to that prefix; "a / b" lists siblings; "x.*" lists the
	 * names given in its meaning column.
	 */
	private static List<String> documentedPropertyReference() throws IOException {
		String section = Files.readString(Path.of("../docs/properties.md"));
		Pattern tablePrefix = Pattern.compile("\\(`(exactlyonce\\.[a-z-]+)\\.<[^>]+>\\.\\*`");
		Pattern code = Pattern.compile("`([^`]+)`");
		String prefix = "";
		List<String> names = new ArrayList<>();
		for (String line : section.split("\n")) {
			Matcher table = tablePrefix.matcher(line);
			if (table.find()) {
				prefix = table.group(1) + (table.group(1).endsWith("streams") ? ".TASKS." : ".worker.");
			}
			else if (line.startsWith("Everything else")) {
				prefix = "";
			}
			if (!line.startsWith("| `")) {
				continue;
			}
			String[] cells = line.split("\\|");
			Matcher first = code.matcher(cells[1]);
			String base = null;
			while (first.find()) {
				String name = first.group(1);
				if (base == null) {
					base = prefix + name;
					names.addAll(expand(base, cells[3], code));
				}
				else if (cells[1].contains("/")) {
					String[] baseElements = base.split("\\.");
					int keep = baseElements.length - name.split("\\.").length;
					names.add(String.join(".", List.of(baseElements).subList(0, keep)) + "." + name);
				}
				else {
					names.add(prefix + name);
				}
			}
		}
		return names;
	}

	private static List<String> expand(String name, String meaning, Pattern code) {
		if (!name.endsWith(".*")) {
			return List.of(name);
		}
		List<String> children = new ArrayList<>();
		Matcher child = code.matcher(meaning);
		while (child.find()) {
			children.add(name.substring(0, name.length() - 1) + child.group(1));
		}
		return children;
	}

}
