package dev.exactlyonce.sample;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

/**
 * The git repository the marketing agent commits its posts to: {@code sample.repository} (else
 * {@code sample.output-dir}), with each post in {@code posts/<taskId>.md} and a
 * {@code Task-Id: <taskId>} trailer in its commit message, so a task's commit can be found again
 * ({@code git log --grep}). Uses the {@code git} command. Instances sharing the repository take
 * turns through a file lock ({@code .commit.lock}, released by the OS when a process dies).
 */
@Component
class PostRepository {

	private static final long GIT_TIMEOUT_SECONDS = 30;

	private final Path directory;

	PostRepository(SampleProperties properties) {
		this.directory = properties.resolvedRepository();
	}

	/**
	 * Writes a task's post and commits it; a second commit of the same task is made even when the
	 * text is unchanged, as a real duplicate side effect would be.
	 * @param taskId the task (letters, digits, {@code -} and {@code _}, as the CEO agent checks)
	 * @param text the post
	 * @return the commit's sha
	 */
	synchronized String commit(String taskId, String text) throws IOException, InterruptedException {
		try (FileChannel lockFile = openLockFile(); FileLock lock = lockFile.lock()) {
			return commitLocked(taskId, text);
		}
	}

	/**
	 * Commits a task's post unless the task already has a commit, deciding and committing under the
	 * repository's lock: a side effect made idempotent on the task's key. A zombie (an instance that
	 * was paused inside this step while another took the task over and committed) finds that commit
	 * when it resumes and makes none of its own.
	 * @param taskId the task
	 * @param text the post
	 * @return the sha of the task's commit, new or found
	 */
	synchronized String commitOnce(String taskId, String text) throws IOException, InterruptedException {
		try (FileChannel lockFile = openLockFile(); FileLock lock = lockFile.lock()) {
			Optional<String> existing = findLocked(taskId);
			return existing.isPresent() ? existing.get() : commitLocked(taskId, text);
		}
	}

	/**
	 * The commit of a task, looked up by its trailer.
	 * @param taskId the task
	 * @return the sha of its latest commit, or empty when it was never committed
	 */
	synchronized Optional<String> findCommit(String taskId) throws IOException, InterruptedException {
		try (FileChannel lockFile = openLockFile(); FileLock lock = lockFile.lock()) {
			return findLocked(taskId);
		}
	}

	private String commitLocked(String taskId, String text) throws IOException, InterruptedException {
		if (!Files.isDirectory(this.directory.resolve(".git"))) {
			git("init", "-q");
		}
		Path post = Files.createDirectories(this.directory.resolve("posts")).resolve(taskId + ".md");
		Files.writeString(post, text);
		git("add", "posts/" + taskId + ".md");
		git("commit", "-q", "--allow-empty", "-m", "Post for task " + taskId, "-m", "Task-Id: " + taskId);
		return git("rev-parse", "HEAD").trim();
	}

	private Optional<String> findLocked(String taskId) throws IOException, InterruptedException {
		if (!Files.isDirectory(this.directory.resolve(".git"))) {
			return Optional.empty();
		}
		String shas = git("log", "--format=%H", "--grep=^Task-Id: " + taskId + "$");
		return shas.lines().findFirst();
	}

	/** The file whose lock instances sharing this repository take turns on. */
	private FileChannel openLockFile() throws IOException {
		Files.createDirectories(this.directory);
		return FileChannel.open(this.directory.resolve(".commit.lock"), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE);
	}

	private String git(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("git", "-C", this.directory.toString(), "-c",
				"user.name=marketing-agent", "-c", "user.email=marketing-agent@example.invalid", "-c",
				"commit.gpgsign=false"));
		command.addAll(List.of(arguments));
		Process git = new ProcessBuilder(command).redirectErrorStream(true).start();
		if (!git.waitFor(GIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
			git.destroyForcibly();
			throw new IOException("git " + arguments[0] + " in " + this.directory + " did not finish within "
					+ GIT_TIMEOUT_SECONDS + " s");
		}
		String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (git.exitValue() != 0) {
			throw new IOException("git " + arguments[0] + " in " + this.directory + " failed with exit status "
					+ git.exitValue() + ": " + output.strip());
		}
		return output;
	}

}
