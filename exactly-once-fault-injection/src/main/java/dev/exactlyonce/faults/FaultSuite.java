package dev.exactlyonce.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.exactlyonce.test.NatsServerProcess;

/**
 * The fault-injection suite: runs each {@link FaultRow} against real processes and prints the
 * matrix (injections, duplicates executed, lost, dead-lettered per row).
 * <p>
 * {@code java dev.exactlyonce.faults.FaultSuite [--long] [--rows=KILL_HANDLED_RETRY,...]
 * [--store=nats-kv|jdbc] [--pipelined] [--injections=N --tasks=N] [--report=docs/fault-injection.md]
 * [--work-dir=DIR]}; {@code --pipelined} runs the consumers with {@code exactlyonce.listener.pipelined}.
 */
public final class FaultSuite {

	private final SuiteProfile profile;

	private final Path workDir;

	private final Log log = new Log();

	/**
	 * Creates a suite.
	 * @param profile what to run
	 * @param workDir where processes keep their files (kept for inspection)
	 */
	public FaultSuite(SuiteProfile profile, Path workDir) {
		this.profile = profile;
		this.workDir = workDir;
	}

	/**
	 * Runs every row of the profile.
	 * @return one result per row
	 * @throws IOException when files cannot be written
	 * @throws InterruptedException when interrupted
	 */
	public List<RowResult> run() throws IOException, InterruptedException {
		String store = this.profile.storeType();
		if (!StoreServer.TYPES.contains(store)) {
			throw new IllegalArgumentException("--store=" + store + " is not supported by the fault driver: use one of "
					+ StoreServer.TYPES);
		}
		Files.createDirectories(this.workDir);
		try (PostgresDatabase database = store.equals(PostgresDatabase.STORE_TYPE) ? new PostgresDatabase() : null) {
			return run(database);
		}
	}

	private List<RowResult> run(PostgresDatabase database) throws IOException, InterruptedException {
		Path jar = SampleAppLauncher.locateJar();
		SampleAppLauncher launcher;
		try (NatsServerProcess training = new NatsServerProcess().start()) {
			launcher = SampleAppLauncher.prepare(jar, this.workDir, training.url(), this.log);
			if (database != null) {
				database.createTables(launcher, training.url(), this.workDir);
			}
		}
		this.log.line("profile " + this.profile.name() + ": " + this.profile.consumers() + " consumers, "
				+ this.profile.tasksPerRow() + " tasks and " + this.profile.injectionsPerRow()
				+ " injections per row, store " + this.profile.storeType()
				+ ((database != null) ? " on " + database : "") + "; app: " + launcher);
		this.log.line("nats-server " + ClusterSupport.installedVersion() + " (" + Binaries.natsServer() + ")");
		if (ClusterSupport.whyLeftOut() != null) {
			this.log.line("the short version leaves CLUSTER_NODE_KILL out: " + ClusterSupport.whyLeftOut());
		}
		List<RowResult> results = new ArrayList<>();
		long seed = Long.getLong("faults.seed", System.nanoTime());
		this.log.line("seed " + seed);
		for (FaultRow row : this.profile.rows()) {
			Path rowDir = this.workDir.resolve(row.name().toLowerCase(Locale.ROOT));
			this.log.line("row " + row.name() + ": " + row.label());
			RowResult result = new RowRun(row, this.profile, launcher, database, rowDir, this.log,
					seed + row.ordinal()).run();
			if (result.skipped() != null) {
				this.log.line("row " + row.name() + " SKIPPED: " + result.skipped());
				results.add(result);
				continue;
			}
			this.log.line("row " + row.name() + " done in " + seconds(result.elapsed()) + ": " + result.injections()
					+ " injections, " + result.executions() + " executions, " + result.duplicates() + " duplicates, "
					+ result.lost() + " lost, " + result.stuck() + " stuck, " + result.deadLettered()
					+ " dead-lettered, "
					+ result.sideEffects().duplicateCommits() + " duplicate commits, " + result.sideEffects().extraDrafts()
					+ " extra drafts, " + result.sideEffects().notFirstDraft() + " not the first draft, "
					+ result.sideEffects().duplicateDeployMessages() + " deploy tasks stored twice, "
					+ result.sideEffects().duplicateDeploys() + " deploys re-run"
					+ (result.posts().measured() ? ", " + result.posts().total() + " posts rows, "
							+ result.posts().duplicates() + " duplicate posts rows" : "")
					+ (result.unexpected().isEmpty() ? "" : ", UNEXPECTED " + result.unexpected())
					+ "; " + result.notes());
			results.add(result);
		}
		this.log.line("suite done in " + seconds(this.log.elapsed()));
		return results;
	}

	/**
	 * The matrix as a Markdown table.
	 * @param results the rows
	 * @return the table
	 */
	public static String table(List<RowResult> results) {
		boolean posts = results.stream().anyMatch((result) -> result.posts().measured());
		StringBuilder table = new StringBuilder();
		table.append("| fault / injection point | injections | tasks | handler re-runs (ledger) | commits | duplicate "
				+ "commits | drafts (model calls) | committed draft not the first | deploy tasks stored twice | deploys "
				+ "| deploys re-run (DevOps handler) | ")
			.append(posts ? "business rows (posts) | duplicate business rows | " : "")
			.append("lost | stuck | dead-lettered | unexpected | notes |\n");
		table.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(posts ? "---:|---:|" : "")
			.append("---:|---:|---:|---:|---|\n");
		for (RowResult result : results) {
			SideEffects done = result.sideEffects();
			table.append("| ").append(result.row().label()).append(" | ").append(result.injections()).append(" | ")
				.append(result.tasks()).append(" | ").append(result.duplicates()).append(" | ")
				.append(total(done.commits())).append(" | ").append(done.duplicateCommits()).append(" | ")
				.append(total(done.drafts())).append(" | ").append(done.notFirstDraft()).append(" | ")
				.append(done.duplicateDeployMessages()).append(" | ").append(total(done.deploys())).append(" | ")
				.append(done.duplicateDeploys()).append(" | ");
			if (posts) {
				table.append(result.posts().total()).append(" | ").append(result.posts().duplicates()).append(" | ");
			}
			table.append(result.lost()).append(" | ").append(result.stuck()).append(" | ")
				.append(result.deadLettered()).append(" | ")
				.append(result.unexpected().size()).append(" | ").append(notes(result)).append(" |\n");
		}
		return table.toString();
	}

	private static int total(Map<String, List<String>> perTask) {
		return perTask.values().stream().mapToInt(List::size).sum();
	}

	private static String notes(RowResult result) {
		if (result.skipped() != null) {
			return ("SKIPPED: " + result.skipped()).replace("|", "/");
		}
		List<String> notes = new ArrayList<>(result.notes());
		notes.add(result.publisherKills() + " publisher kill(s), " + result.republishedDuplicates()
				+ " republish(es) deduplicated");
		notes.add(seconds(result.elapsed()));
		result.unexpected().forEach((item) -> notes.add("UNEXPECTED: " + item));
		return String.join("; ", notes).replace("|", "/");
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() / 1000) + " s";
	}

	public static void main(String[] args) throws Exception {
		SuiteProfile profile = Arrays.asList(args).contains("--long") ? SuiteProfile.thorough() : SuiteProfile.quick();
		Path report = null;
		Path workDir = Path.of("target", "fault-injection");
		Integer injections = null;
		Integer tasks = null;
		for (String arg : args) {
			if (arg.startsWith("--rows=")) {
				profile = profile.withRows(Arrays.stream(arg.substring(7).split(","))
					.map((name) -> FaultRow.valueOf(name.trim().toUpperCase(Locale.ROOT)))
					.toList());
			}
			else if (arg.startsWith("--store=")) {
				profile = profile.withStoreType(arg.substring(8));
			}
			else if (arg.equals("--pipelined")) {
				profile = profile.pipelinedCopy();
			}
			else if (arg.startsWith("--report=")) {
				report = Path.of(arg.substring(9));
			}
			else if (arg.startsWith("--work-dir=")) {
				workDir = Path.of(arg.substring(11));
			}
			else if (arg.startsWith("--injections=")) {
				injections = Integer.valueOf(arg.substring(13));
			}
			else if (arg.startsWith("--tasks=")) {
				tasks = Integer.valueOf(arg.substring(8));
			}
		}
		if (injections != null || tasks != null) {
			profile = profile.withSizes((injections != null) ? injections : profile.injectionsPerRow(),
					(tasks != null) ? tasks : profile.tasksPerRow());
		}
		List<RowResult> results = new FaultSuite(profile, workDir.toAbsolutePath()).run();
		String table = table(results);
		System.out.println();
		System.out.println(table);
		if (report != null) {
			writeReport(report, profile, results, table, String.join(" ", args));
		}
		boolean skipFails = skipsFail();
		boolean holds = results.stream()
			.allMatch((result) -> result.holds() || (result.skipped() != null && !skipFails));
		results.stream().filter((result) -> result.skipped() != null).forEach((result) -> System.out.println("SKIPPED "
				+ result.row().name() + ": " + result.skipped() + (skipFails ? " (a failure: $CI is set)" : "")));
		System.out.println(holds ? "Every row that ran holds: nothing lost or stuck, nothing unexpected, no handler "
				+ "re-run, second commit, model call or deploy outside the rows that name the window, no deploy task "
				+ "stored twice." : "A ROW DOES NOT HOLD: see the table above.");
		System.exit(holds ? 0 : 1);
	}

	/**
	 * Whether a row that could not run here (no network namespaces: not root) fails the run: in CI
	 * ({@code $CI} set, as {@code .ci/run} and CI services do), where every row must run.
	 * @return {@code true} in CI
	 */
	public static boolean skipsFail() {
		String ci = System.getenv("CI");
		return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
	}

	private static void writeReport(Path report, SuiteProfile profile, List<RowResult> results, String table,
			String args) throws IOException {
		String marker = "<!-- fault-matrix:" + profile.name()
				+ (profile.storeType().equals("nats-kv") ? "" : "-" + profile.storeType())
				+ (profile.pipelined() ? "-pipelined" : "") + " -->";
		String section = marker + "\n" + "Measured " + Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
				+ " on " + Runtime.getRuntime().availableProcessors() + " cores with `scripts/fault-suite.sh "
				+ args.replace("--report=" + report, "").trim() + "` (profile " + profile.name() + ": "
				+ profile.consumers() + " consumer JVMs, " + profile.tasksPerRow() + " tasks and "
				+ profile.injectionsPerRow() + " planned injections per row, work " + profile.workDuration().toMillis()
				+ " ms, ack-wait " + profile.ackWait().toSeconds() + " s, lease " + profile.lease().toSeconds()
				+ " s, store " + profile.storeType() + (profile.pipelined() ? ", pipelined listeners" : "") + "):\n\n" + table
				+ marker + "\n";
		String text = Files.isRegularFile(report) ? Files.readString(report) : "";
		int start = text.indexOf(marker);
		int end = (start >= 0) ? text.indexOf(marker, start + marker.length()) : -1;
		if (start >= 0 && end > start) {
			text = text.substring(0, start) + section + text.substring(end + marker.length() + 1);
		}
		else {
			text = text + "\n" + section;
		}
		Files.writeString(report, text);
	}

}
