package dev.exactlyonce.audit;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders reports as the reference table: one row per run and consumer with published,
 * completed, duplicates caught by stream dedup, duplicates caught by the idempotency check,
 * duplicates that reached execution, dead letters and other discrepancies. A Markdown table, so
 * it reads in a terminal and pastes into an incident note.
 */
public final class ReconciliationTable {

	private static final String[] HEADERS = { "window", "consumer", "published", "completed",
			"dup caught by stream dedup", "dup caught by idempotency check", "dups reaching execution",
			"dead-lettered", "other discrepancies" };

	/** Why published and completed differ when nothing is wrong. */
	static final String PUBLISHED_NOTE = "published counts messages, completed counts tasks: a task that waited "
			+ "(the delivery it suspended, then its resume copy), was requeued or was replayed has more than one "
			+ "message\n";

	private ReconciliationTable() {
	}

	/**
	 * Renders reports.
	 * @param reports the reports, oldest first
	 * @param zone the time zone of the window column
	 * @return the table, one line per row
	 */
	public static String render(List<ReconciliationReport> reports, ZoneId zone) {
		DateTimeFormatter format = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(zone);
		List<String[]> rows = new ArrayList<>();
		for (ReconciliationReport report : reports) {
			String window = format.format(report.from()) + " .. " + format.format(report.to());
			if (report.error() != null) {
				rows.add(new String[] { window, "(failed: " + report.error() + ")", "", "", "", "", "", "", "" });
			}
			for (ConsumerReconciliation consumer : report.consumers()) {
				long other = consumer.discrepancies()
					.stream()
					.filter((d) -> d.type() != Discrepancy.Type.DEAD_LETTERED
							&& d.type() != Discrepancy.Type.REACHED_EXECUTION)
					.count();
				rows.add(new String[] { window, consumer.consumer(), Long.toString(consumer.published()),
						(consumer.completed() != null) ? Long.toString(consumer.completed()) : "n/a",
						Long.toString(consumer.duplicatesCaughtByStreamDedup()),
						Long.toString(consumer.duplicatesCaughtByIdempotencyCheck()),
						Long.toString(consumer.duplicatesReachedExecution()), Long.toString(consumer.deadLettered()),
						Long.toString(other) });
			}
		}
		return format(rows) + PUBLISHED_NOTE;
	}

	private static String format(List<String[]> rows) {
		int[] widths = new int[HEADERS.length];
		for (int i = 0; i < HEADERS.length; i++) {
			widths[i] = HEADERS[i].length();
			for (String[] row : rows) {
				widths[i] = Math.max(widths[i], row[i].length());
			}
		}
		StringBuilder table = new StringBuilder();
		line(table, HEADERS, widths);
		String[] rule = new String[HEADERS.length];
		for (int i = 0; i < rule.length; i++) {
			rule[i] = "-".repeat(widths[i]);
		}
		line(table, rule, widths);
		rows.forEach((row) -> line(table, row, widths));
		return table.toString();
	}

	private static void line(StringBuilder table, String[] cells, int[] widths) {
		table.append('|');
		for (int i = 0; i < cells.length; i++) {
			String cell = cells[i];
			boolean numeric = i >= 2 && !cell.isEmpty() && Character.isDigit(cell.charAt(0));
			String padding = " ".repeat(widths[i] - cell.length());
			table.append(' ').append(numeric ? padding + cell : cell + padding).append(" |");
		}
		table.append('\n');
	}

}
