package dev.exactlyonce.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link of README.md, CHANGELOG.md and the reference guide under docs/ leads to a file
 * of this repository and, when it names a section, to a heading of that file (GitHub's anchors), so
 * moving a section cannot leave a reader at a dead link.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

	@Test
	void everyRelativeLinkLeadsToAFileAndHeadingOfThisRepository() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		assertThat(pages).hasSizeGreaterThan(10);
		List<String> broken = new ArrayList<>();
		for (Path page : pages) {
			Matcher link = LINK.matcher(withoutCodeBlocks(Files.readString(page)));
			while (link.find()) {
				String target = link.group(1);
				if (!target.matches("^[a-z]+:.*")) {
					check(page, target, broken);
				}
			}
		}
		assertThat(broken).as("broken links").isEmpty();
	}

	private static void check(Path page, String target, List<String> broken) throws IOException {
		int hash = target.indexOf('#');
		String file = (hash < 0) ? target : target.substring(0, hash);
		Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
		String where = ROOT.relativize(page) + " -> " + target;
		if (!Files.exists(resolved)) {
			broken.add(where + " (no such file)");
		}
		else if (hash >= 0 && resolved.toString().endsWith(".md")
				&& !anchors(resolved).contains(target.substring(hash + 1))) {
			broken.add(where + " (no such heading)");
		}
	}

	private static Set<String> anchors(Path page) throws IOException {
		Set<String> anchors = new HashSet<>();
		for (String line : withoutCodeBlocks(Files.readString(page)).split("\n")) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				anchors.add(heading.group(1)
					.strip()
					.toLowerCase(Locale.ROOT)
					.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
					.replace(' ', '-'));
			}
		}
		return anchors;
	}

	private static String withoutCodeBlocks(String markdown) {
		return markdown.replaceAll("(?ms)^```.*?^```", "");
	}

}
