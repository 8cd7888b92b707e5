package dev.exactlyonce.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lists the posts the marketing agent wrote.
 */
@RestController
class PostsController {

	private final SampleProperties properties;

	PostsController(SampleProperties properties) {
		this.properties = properties;
	}

	@GetMapping("/posts")
	List<Post> posts() throws IOException {
		Path posts = this.properties.getOutputDir().resolve("posts");
		if (!Files.isDirectory(posts)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(posts)) {
			return files.sorted().map(PostsController::read).toList();
		}
	}

	private static Post read(Path file) {
		try {
			String name = file.getFileName().toString();
			return new Post(name.substring(0, name.length() - ".md".length()), Files.readString(file));
		}
		catch (IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	/**
	 * A written post.
	 *
	 * @param taskId the task it was written for
	 * @param content its text
	 */
	record Post(String taskId, String content) {
	}

}
