package dev.exactlyonce.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The answers table of docs/operating.md: each row's text and the status it gives, so that tests can
 * check that the endpoint answers what the table says.
 */
final class AnswersTable {

	private final Map<String, Integer> rows = new LinkedHashMap<>();

	private AnswersTable() {
	}

	/** Reads the table from docs/operating.md. */
	static AnswersTable read() throws Exception {
		AnswersTable table = new AnswersTable();
		Pattern row = Pattern.compile("^\\| `(\\d{3})` \\| (.+) \\|$");
		for (String line : Files.readAllLines(Path.of("../docs/operating.md"))) {
			Matcher matcher = row.matcher(line);
			if (matcher.matches()) {
				table.rows.put(matcher.group(2), Integer.parseInt(matcher.group(1)));
			}
		}
		return table;
	}

	/** Asserts that each case answered the status of the one row of the table that mentions it. */
	void assertAnswered(Map<String, Integer> answered) {
		answered.forEach((when, status) -> assertThat(status)
			.as("the answer to '" + when + "' (row '" + rowOf(when) + "')")
			.isEqualTo(this.rows.get(rowOf(when))));
	}

	/** The status of the one row of the table that mentions {@code when}. */
	int status(String when) {
		return this.rows.get(rowOf(when));
	}

	private String rowOf(String when) {
		List<String> matching = this.rows.keySet().stream().filter((text) -> text.contains(when)).toList();
		assertThat(matching).as("rows of the answers table in docs/operating.md that mention '" + when + "'").hasSize(1);
		return matching.get(0);
	}

}
