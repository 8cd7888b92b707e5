package dev.exactlyonce.benchmark;

import java.util.Locale;

/**
 * One fill level of one store in the scale benchmark's table; {@code NaN} figures print as {@code -}.
 *
 * @param records the bulk-loaded records
 * @param stored every record the store holds (scanned)
 * @param fillPerSecond bulk-loaded records per second at this level
 * @param latencies claims and completions after the fill
 * @param bytesPerRecord the store's own cost of a record
 * @param diskBytesPerRecord the server's files per record
 * @param scan the scan of the whole store, {@code null} when it failed
 * @param restartSeconds the server's restart until a stored key reads
 */
record ScaleRow(long records, long stored, double fillPerSecond, ScaleRecords.Latencies latencies,
		double bytesPerRecord, double diskBytesPerRecord, ScanProbe.Result scan, double restartSeconds) {

	static final String HEADER = "| records | stored | fill rec/s | claim p50 ms | claim p99 ms | complete p50 ms "
			+ "| complete p99 ms | bytes/record | disk bytes/record | scan s | scan rec/s | scan heap peak MB "
			+ "| scan heap live MB | restart s |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

	/**
	 * The row in Markdown.
	 * @return the row
	 */
	String markdown() {
		String scanned = (this.scan != null) ? String.join(" | ", format("%.1f", this.scan.seconds()),
				format("%.0f", this.scan.recordsPerSecond()), format("%.0f", this.scan.peakHeapMb()),
				format("%.0f", this.scan.liveHeapMb())) : "failed | failed | failed | failed";
		return String.join(" | ", "| " + this.records, Long.toString(this.stored), format("%.0f", this.fillPerSecond),
				format("%.3f", this.latencies.claims().percentileMillis(50)),
				format("%.3f", this.latencies.claims().percentileMillis(99)),
				format("%.3f", this.latencies.completions().percentileMillis(50)),
				format("%.3f", this.latencies.completions().percentileMillis(99)), format("%.0f", this.bytesPerRecord),
				format("%.0f", this.diskBytesPerRecord), scanned, format("%.2f", this.restartSeconds) + " |");
	}

	private static String format(String format, double value) {
		return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, format, value);
	}

}
