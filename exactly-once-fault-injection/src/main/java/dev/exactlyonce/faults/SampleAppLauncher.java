package dev.exactlyonce.faults;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code sample-agent-app} JVMs ({@code java -jar}). To make the many restarts cheap it
 * first extracts the jar ({@code -Djarmode=tools extract}) and records a class-data-sharing
 * archive in one training run; when either step fails it runs the packaged jar as is.
 */
final class SampleAppLauncher {

	private static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
			"-Xmx256m", "-Xss512k");

	private final Path jar;

	private final List<String> jvmOptions;

	private final List<String> commandPrefix;

	private SampleAppLauncher(Path jar, List<String> jvmOptions) {
		this(jar, jvmOptions, List.of());
	}

	private SampleAppLauncher(Path jar, List<String> jvmOptions, List<String> commandPrefix) {
		this.jar = jar;
		this.jvmOptions = jvmOptions;
		this.commandPrefix = commandPrefix;
	}

	/**
	 * This launcher with its JVMs started through a command prefix ({@code ip netns exec <name>}).
	 * @param prefix the command and arguments that run {@code java ...}
	 * @return a copy
	 */
	SampleAppLauncher through(List<String> prefix) {
		return new SampleAppLauncher(this.jar, this.jvmOptions, List.copyOf(prefix));
	}

	/**
	 * Finds the packaged sample app: {@code -Dfaults.sample-jar}, else
	 * {@code sample-agent-app/target/sample-agent-app-*.jar} under the working directory or its parent.
	 * @return the jar
	 * @throws IllegalStateException naming the build command when it is missing
	 */
	static Path locateJar() {
		String configured = System.getProperty("faults.sample-jar");
		List<Path> candidates = new ArrayList<>();
		if (configured != null && !configured.isBlank()) {
			candidates.add(Path.of(configured));
		}
		for (Path base : List.of(Path.of(""), Path.of(".."))) {
			Path target = base.resolve("sample-agent-app/target");
			if (Files.isDirectory(target)) {
				try (var files = Files.list(target)) {
					files.filter((file) -> file.getFileName().toString().matches("sample-agent-app-.*\\.jar"))
						.filter((file) -> !file.getFileName().toString().endsWith("-plain.jar"))
						.forEach(candidates::add);
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}
		return candidates.stream()
			.filter(Files::isRegularFile)
			.findFirst()
			.map(Path::toAbsolutePath)
			.orElseThrow(() -> new IllegalStateException("sample-agent-app is not packaged (looked at " + candidates
					+ "); build it first: ./mvnw -B -DskipTests package -pl sample-agent-app -am"));
	}

	/**
	 * Prepares the launcher: extraction and the class-data-sharing archive, trained against a
	 * running NATS.
	 * @param jar the packaged app
	 * @param workDir where to extract
	 * @param natsUrl a NATS to train against
	 * @param log where to report
	 * @return the launcher
	 */
	static SampleAppLauncher prepare(Path jar, Path workDir, String natsUrl, Log log) {
		try {
			Path extracted = workDir.resolve("app");
			if (run(List.of(Binaries.java(), "-Djarmode=tools", "-jar", jar.toString(), "extract", "--force",
					"--destination", extracted.toString()), workDir.resolve("extract.log"), 60) != 0) {
				log.line("could not extract " + jar + "; running it as packaged (slower restarts)");
				return new SampleAppLauncher(jar, JVM_OPTIONS);
			}
			Path app = extracted.resolve(jar.getFileName());
			Path archive = workDir.resolve("app.jsa");
			List<String> training = new ArrayList<>(List.of(Binaries.java(), "-XX:ArchiveClassesAtExit=" + archive,
					"-Dspring.context.exit=onRefresh"));
			training.addAll(JVM_OPTIONS);
			training.addAll(List.of("-jar", app.toString(), "--exactlyonce.nats.servers=" + natsUrl,
					"--spring.main.web-application-type=none", "--sample.output-dir=" + workDir.resolve("training")));
			if (run(training, workDir.resolve("training.log"), 120) != 0 || !Files.isRegularFile(archive)) {
				log.line("class-data-sharing training failed (see " + workDir.resolve("training.log")
						+ "); running without it");
				return new SampleAppLauncher(app, JVM_OPTIONS);
			}
			List<String> options = new ArrayList<>(JVM_OPTIONS);
			options.add("-XX:SharedArchiveFile=" + archive);
			options.add("-Xlog:cds=off");
			return new SampleAppLauncher(app, options);
		}
		catch (IOException ex) {
			log.line("could not prepare the sample app (" + ex.getMessage() + "); running it as packaged");
			return new SampleAppLauncher(jar, JVM_OPTIONS);
		}
	}

	/**
	 * Starts one app JVM.
	 * @param properties Spring properties given as {@code --key=value}
	 * @param console file that gets its output (appended)
	 * @param environment variables added to this JVM's environment (e.g. a preloaded libfaketime)
	 * @return the process
	 */
	Process start(Map<String, String> properties, Path console, Map<String, String> environment) {
		List<String> command = new ArrayList<>(this.commandPrefix);
		command.addAll(command(List.of(), properties));
		try {
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()));
			builder.environment().putAll(environment);
			return builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
	}

	/**
	 * Runs one app JVM until its context is refreshed ({@code -Dspring.context.exit=onRefresh}).
	 * @param properties Spring properties given as {@code --key=value}
	 * @param output file that gets its output
	 * @return its exit status ({@code -1} when it did not exit within 2 minutes)
	 */
	int runUntilRefreshed(Map<String, String> properties, Path output) {
		List<String> command = command(List.of("-Dspring.context.exit=onRefresh"), properties);
		try {
			return run(command, output, 120);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
	}

	private List<String> command(List<String> systemProperties, Map<String, String> properties) {
		List<String> command = new ArrayList<>();
		command.add(Binaries.java());
		command.addAll(systemProperties);
		command.addAll(this.jvmOptions);
		command.add("-jar");
		command.add(this.jar.toString());
		properties.forEach((key, value) -> command.add("--" + key + "=" + value));
		return command;
	}

	private static int run(List<String> command, Path output, int timeoutSeconds) throws IOException {
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.directory(output.getParent().toFile())
			.start();
		try {
			if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor();
				return -1;
			}
			return process.exitValue();
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			return -1;
		}
	}

	@Override
	public String toString() {
		return String.join(" ", this.jvmOptions) + " -jar " + this.jar.getParent().getFileName() + File.separator
				+ this.jar.getFileName();
	}

}
