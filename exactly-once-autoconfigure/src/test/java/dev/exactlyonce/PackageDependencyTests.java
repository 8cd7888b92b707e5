package dev.exactlyonce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pipeline stands on its own model: only the Spring Boot layer ({@code autoconfigure} and
 * {@code actuate.autoconfigure}) may refer to the binding classes in {@code autoconfigure} or to
 * Boot's configuration-properties binding. A plain scan of the main sources, so a new import in a
 * core package fails the build with the file and line that added it.
 */
class PackageDependencyTests {

	private static final Path SOURCES = Path.of("src/main/java/dev/exactlyonce");

	private static final Pattern CHILDREN_API = Pattern
		.compile("dev\\.exactlyonce\\.children\\.(ChildTask|ChildTaskCalls|ChildResult|ChildFailedException|ChildTimeoutException)\\b");

	private static final Pattern CHILDREN_API_SOURCE = Pattern
		.compile("^children/(ChildTask|ChildTaskCalls|ChildResult|ChildFailedException|ChildTimeoutException)\\.java:");

	private static final Pattern STEPS_API = Pattern.compile(
			"dev\\.exactlyonce\\.listener\\.(Step(Action|Probe|Outcome|FailedException|RejectedException|InterruptedException)|logging\\.)");

	private static final Set<Path> BOOT_LAYER = Set.of(Path.of("autoconfigure"), Path.of("actuate", "autoconfigure"));

	@Test
	void coreScanCoversEveryPipelinePackage() {
		Set<String> packages = new TreeSet<>();
		coreSources().forEach((source) -> packages.add(SOURCES.relativize(source.getParent()).toString()));
		assertThat(packages).contains("listener", "store", "store/natskv", "provision", "publish", "deadletter",
				"audit", "nats", "actuate", "operations", "waits", "exhausted", "children", "limits", "steps",
				"steps/spi")
			.doesNotContain("autoconfigure", "actuate/autoconfigure");
	}

	@Test
	void corePackagesDoNotReferToTheAutoConfigurationPackage() {
		assertThat(references("dev.exactlyonce.autoconfigure")).isEmpty();
	}

	@Test
	void theListenerPackageCallsCapabilitiesOnlyThroughTheirPorts() {
		assertThat(references("dev.exactlyonce.waits")).filteredOn((line) -> line.startsWith("listener"))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.waits.spi."))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.waits.DurableWaitCalls;"))
			.as("listener/ calls the small interfaces of dev.exactlyonce.waits.spi; dev.exactlyonce.waits implements them "
					+ "(ExactlyOnceContext extends the API, DurableWaitCalls)")
			.isEmpty();
		assertThat(references("dev.exactlyonce.listener")).filteredOn((line) -> line.startsWith("waits/spi"))
			.filteredOn((line) -> line.contains("import "))
			.as("the ports stand on their own").isEmpty();
		assertThat(references("dev.exactlyonce.limits")).filteredOn((line) -> line.startsWith("listener"))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.limits.spi."))
			.as("listener/ calls the small interfaces of dev.exactlyonce.limits.spi; dev.exactlyonce.limits implements them")
			.isEmpty();
		assertThat(references("dev.exactlyonce.listener")).filteredOn((line) -> line.startsWith("limits"))
			.filteredOn((line) -> line.contains("import "))
			.as("limits stand on the ports of waits, not on the pipeline").isEmpty();
	}

	@Test
	void theListenerPackageRunsStepsOnlyThroughTheirPort() {
		assertThat(references("dev.exactlyonce.steps")).filteredOn((line) -> line.startsWith("listener"))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.steps.spi."))
			.as("listener/ calls the small interfaces of dev.exactlyonce.steps.spi; dev.exactlyonce.steps implements them")
			.isEmpty();
		assertThat(references("dev.exactlyonce.listener")).filteredOn((line) -> line.startsWith("steps"))
			.filteredOn((line) -> line.contains("import "))
			.filteredOn((line) -> !STEPS_API.matcher(line).find())
			.as("the steps stand on their port and on the step types users import, not on the pipeline")
			.isEmpty();
	}

	@Test
	void theSweepsOfExhaustedMessagesStandOnTheirOwnPort() {
		assertThat(references("dev.exactlyonce.listener")).filteredOn((line) -> line.startsWith("exhausted"))
			.filteredOn((line) -> line.contains("import "))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.listener.logging."))
			.as("dev.exactlyonce.exhausted has keys decided through its ExhaustedKeys port, which listener/ implements")
			.isEmpty();
	}

	@Test
	void theListenerPackageStartsChildrenOnlyThroughTheirPort() {
		assertThat(references("dev.exactlyonce.children")).filteredOn((line) -> line.startsWith("listener"))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.children.spi."))
			.filteredOn((line) -> !CHILDREN_API.matcher(line).find())
			.as("listener/ calls dev.exactlyonce.children.spi and names only the API types of dev.exactlyonce.children")
			.isEmpty();
		assertThat(references("dev.exactlyonce.")).filteredOn((line) -> line.startsWith("children/spi")
				|| CHILDREN_API_SOURCE.matcher(line).find())
			.filteredOn((line) -> line.contains("import "))
			.filteredOn((line) -> !line.contains("dev.exactlyonce.children.") && !line.contains("dev.exactlyonce.waits.spi."))
			.as("the port and the API types stand on their own").isEmpty();
	}

	@Test
	void corePackagesDoNotBindConfigurationProperties() {
		assertThat(references("org.springframework.boot.context.properties")).isEmpty();
	}

	/** Every line of a core source that names the package, as {@code file:line: text}. */
	private static List<String> references(String packageName) {
		List<String> references = new ArrayList<>();
		for (Path source : coreSources()) {
			List<String> lines = lines(source);
			for (int i = 0; i < lines.size(); i++) {
				if (lines.get(i).contains(packageName + ".")) {
					references.add(SOURCES.relativize(source) + ":" + (i + 1) + ": " + lines.get(i).strip());
				}
			}
		}
		return references;
	}

	private static List<Path> coreSources() {
		try (Stream<Path> files = Files.walk(SOURCES)) {
			return files.filter((file) -> file.toString().endsWith(".java"))
				.filter((file) -> !BOOT_LAYER.contains(SOURCES.relativize(file.getParent())))
				.sorted()
				.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> lines(Path source) {
		try {
			return Files.readAllLines(source);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
