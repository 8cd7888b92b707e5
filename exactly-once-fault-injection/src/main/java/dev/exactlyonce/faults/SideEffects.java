package dev.exactlyonce.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the sample's agents really did, read from their artefacts: the commits in the shared git
 * repository (found by their {@code Task-Id} trailer, the committed draft read from the post), the
 * model calls in every {@code drafts.log} ({@code <taskId> <instance> <time> <draftId>}) and the
 * deploys in every {@code deploys.log} ({@code <taskId> <sha> <instance> <time> <stream sequence> <key>}).
 *
 * @param commits commits per task id
 * @param committedDrafts draft id in the post of each task's first commit
 * @param drafts draft ids per task id, oldest first
 * @param deploys deployed shas per task id
 * @param deployMessages keys (message ids) of the deploy tasks the DevOps agent ran, per task id: a
 * copy of a deploy task requeued after its deliveries ran out keeps its key
 */
public record SideEffects(Map<String, List<String>> commits, Map<String, String> committedDrafts,
		Map<String, List<String>> drafts, Map<String, List<String>> deploys,
		Map<String, List<String>> deployMessages) {

	/** Nothing done: the side effects of a row that did not run. */
	static final SideEffects NONE = new SideEffects(Map.of(), Map.of(), Map.of(), Map.of(), Map.of());

	private static final Pattern DRAFT_ID = Pattern.compile("draft (\\S+), written by");

	private static final long GIT_TIMEOUT_SECONDS = 30;

	/**
	 * Reads the artefacts of a row.
	 * @param repository the git repository the consumers share
	 * @param slots the consumer slots (their output directories hold the logs)
	 * @return what was done
	 */
	static SideEffects read(Path repository, List<ConsumerSlot> slots) {
		Map<String, List<String>> commits = new LinkedHashMap<>();
		Map<String, String> committedDrafts = new LinkedHashMap<>();
		if (Files.isDirectory(repository.resolve(".git"))) {
			List<String> log = git(repository, "log", "--reverse", "--format=%H %(trailers:key=Task-Id,valueonly)")
				.lines()
				.filter((line) -> !line.isBlank())
				.toList();
			for (String line : log) {
				String[] fields = line.trim().split(" ");
				if (fields.length == 2) {
					commits.computeIfAbsent(fields[1], (task) -> new ArrayList<>()).add(fields[0]);
				}
			}
			commits.forEach((task, shas) -> {
				Matcher draft = DRAFT_ID.matcher(git(repository, "show", shas.get(0) + ":posts/" + task + ".md"));
				committedDrafts.put(task, draft.find() ? draft.group(1) : "unreadable");
			});
		}
		return new SideEffects(commits, committedDrafts, column(slots, "drafts.log", 3, 2), column(slots, "deploys.log", 1, 3),
				column(slots, "deploys.log", 5, 3));
	}

	/** One field of each line of a log in every slot, per task id (field 0), ordered by its time field. */
	private static Map<String, List<String>> column(List<ConsumerSlot> slots, String file, int field, int time) {
		List<String[]> lines = new ArrayList<>();
		for (ConsumerSlot slot : slots) {
			Path log = slot.directory().resolve(file);
			if (Files.isRegularFile(log)) {
				try {
					Files.readAllLines(log).stream().filter((line) -> !line.isBlank()).map((line) -> line.split(" "))
						.filter((fields) -> fields.length > Math.max(field, time))
						.forEach(lines::add);
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		}
		lines.sort(Comparator.comparing((String[] fields) -> Instant.parse(fields[time])));
		Map<String, List<String>> values = new LinkedHashMap<>();
		lines.forEach((fields) -> values.computeIfAbsent(fields[0], (task) -> new ArrayList<>()).add(fields[field]));
		return values;
	}

	private static String git(Path repository, String... arguments) {
		List<String> command = new ArrayList<>(List.of("git", "-C", repository.toString()));
		command.addAll(List.of(arguments));
		try {
			Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!git.waitFor(GIT_TIMEOUT_SECONDS, TimeUnit.SECONDS) || git.exitValue() != 0) {
				throw new IllegalStateException("git " + arguments[0] + " in " + repository + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while reading " + repository, ex);
		}
	}

	/** Commits beyond the first, summed over tasks. */
	public int duplicateCommits() {
		return beyondFirst(this.commits);
	}

	/** Model calls beyond the first, summed over tasks. */
	public int extraDrafts() {
		return beyondFirst(this.drafts);
	}

	/**
	 * Deploys beyond the first, summed over tasks: the DevOps agent (no steps, no probe) run again
	 * for a deploy task, e.g. when its JVM died after the deploy and before its completion record.
	 */
	public int duplicateDeploys() {
		return beyondFirst(this.deploys);
	}

	/** Deploy tasks stored beyond one per task (distinct message ids the DevOps agent ran). */
	public int duplicateDeployMessages() {
		return this.deployMessages.values()
			.stream()
			.mapToInt((sequences) -> (int) sequences.stream().distinct().count() - 1)
			.sum();
	}

	/** Tasks whose committed post is not the first draft the model wrote for them. */
	public int notFirstDraft() {
		return (int) this.committedDrafts.entrySet()
			.stream()
			.filter((entry) -> !this.drafts.getOrDefault(entry.getKey(), List.of()).stream().findFirst()
				.equals(Optional.of(entry.getValue())))
			.count();
	}

	/** Deploys of a sha that is not a commit of their task. */
	public int deploysOfOtherCommits() {
		return (int) this.deploys.entrySet()
			.stream()
			.flatMap((entry) -> entry.getValue().stream()
				.filter((sha) -> !this.commits.getOrDefault(entry.getKey(), List.of()).contains(sha)))
			.count();
	}

	private static int beyondFirst(Map<String, List<String>> perTask) {
		return perTask.values().stream().mapToInt((values) -> Math.max(0, values.size() - 1)).sum();
	}

}
