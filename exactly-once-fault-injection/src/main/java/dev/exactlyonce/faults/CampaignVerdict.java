package dev.exactlyonce.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a child tasks' row must show, campaign by campaign (the sample's CEO agent: three marketing
 * children awaited together, then one deploy child): the campaign finished (its ledger line); the
 * consumers ran no child key of it besides its three marketing children and its one deploy child
 * (from every {@code deliveries.log}) and the stream stored each child once (one stream sequence
 * per child key: a child published again is deduplicated by its message id); each
 * post committed once; the deploy of exactly those three commits. Handler re-runs of a child and
 * deploys run again are counted for the row's allowance. Also measured: how long a parent took to
 * go on after its children finished (last post's ledger line to the deploy, deploy to the
 * campaign's ledger line); counting only the time in which a consumer JVM was up (started, not halted:
 * nothing can resume a parent while every JVM is down), it must stay within the waits' recheck
 * interval plus {@link #SLACK}.
 */
final class CampaignVerdict {

	/** The marketing children of a campaign, by name (the sample's {@code CeoAgent.POSTS}). */
	static final List<String> POSTS = List.of("blog-post", "newsletter", "social-post");

	/** The deploy child's name. */
	static final String DEPLOY = "deploy";

	/** What a loaded machine may add to the recheck interval before a parent goes on: deliveries, JVM starts. */
	static final Duration SLACK = Duration.ofSeconds(10);

	private final List<String> failures = new ArrayList<>();

	private final List<Duration> goOn = new ArrayList<>();

	private final List<Duration> goOnUp = new ArrayList<>();

	private int finished;

	private int childReruns;

	private int storedTwice;

	private int deployReruns;

	/**
	 * Judges the row's campaigns.
	 * @param campaignIds the campaigns published
	 * @param sideEffects commits and deploys
	 * @param executions ledger lines per id (campaigns and posts)
	 * @param logs the consumers' logs
	 * @param recheck the waits' recheck interval of the consumers
	 */
	CampaignVerdict(List<String> campaignIds, SideEffects sideEffects, Map<String, Integer> executions, Logs logs,
			Duration recheck) {
		Map<String, Map<String, Set<Long>>> children = logs.childSequences();
		for (String campaign : campaignIds) {
			if (executions.containsKey(campaign)) {
				this.finished++;
			}
			else {
				this.failures.add("campaign " + campaign + " did not finish (no ledger line)");
			}
			checkChildren(campaign, children.getOrDefault(campaign, Map.of()));
			List<String> commits = checkPosts(campaign, sideEffects, executions);
			List<String> deploys = sideEffects.deploys().getOrDefault(campaign, List.of());
			this.deployReruns += Math.max(0, deploys.size() - 1);
			if (deploys.isEmpty() && commits.size() == POSTS.size()) {
				this.failures.add("campaign " + campaign + " was not deployed");
			}
			String expected = String.join(",", commits);
			deploys.stream().filter((shas) -> !shas.equals(expected)).forEach((shas) -> this.failures
				.add("campaign " + campaign + " deployed " + shas + ", not its posts' commits " + expected));
			logs.goOn(campaign).ifPresent((gaps) -> {
				this.goOn.add(gaps[0].wall().compareTo(gaps[1].wall()) > 0 ? gaps[0].wall() : gaps[1].wall());
				this.goOnUp.add(gaps[0].up().compareTo(gaps[1].up()) > 0 ? gaps[0].up() : gaps[1].up());
			});
		}
		Duration limit = recheck.plus(SLACK);
		long late = this.goOnUp.stream().filter((duration) -> duration.compareTo(limit) > 0).count();
		if (late > 0) {
			this.failures.add(late + " parent(s) went on more than " + limit.toSeconds() + " s (of time with a consumer "
					+ "JVM up) after their children finished (longest " + max(this.goOnUp) + ")");
		}
	}

	/**
	 * Whether a ledger id is one of a campaign's posts ({@code <campaign>-<post>}).
	 * @param id the ledger id
	 * @param prefix the row's task prefix
	 * @return whether it is a post
	 */
	static boolean isPost(String id, String prefix) {
		return id.matches(Pattern.quote(prefix) + "-\\d+-(" + String.join("|", POSTS) + ")");
	}

	/** The child key of a campaign's child in the campaign's first run. */
	static String childKey(String campaign, String child) {
		return RowRun.CAMPAIGN_CONSUMER + "/" + campaign + "/" + child;
	}

	private void checkChildren(String campaign, Map<String, Set<Long>> sequences) {
		Set<String> expected = new TreeSet<>();
		POSTS.forEach((post) -> expected.add(childKey(campaign, post)));
		expected.add(childKey(campaign, DEPLOY));
		// a key missing here is no failure: a JVM halted between a delivery's ack and its line in
		// deliveries.log leaves none (the posts are judged by their ledger lines and commits, the deploy by deploys.log)
		Set<String> extra = new TreeSet<>(sequences.keySet());
		extra.removeAll(expected);
		if (!extra.isEmpty()) {
			this.failures.add("campaign " + campaign + " ran children " + extra + " besides " + expected);
		}
		sequences.forEach((key, stored) -> {
			if (stored.size() > 1) {
				this.storedTwice += stored.size() - 1;
				this.failures.add("child " + key + " was stored " + stored.size() + " times (stream sequences " + stored
						+ ")");
			}
		});
	}

	/** The posts' first commits, in the campaign's order; a post not committed or committed twice fails. */
	private List<String> checkPosts(String campaign, SideEffects sideEffects, Map<String, Integer> executions) {
		List<String> commits = new ArrayList<>();
		for (String post : POSTS) {
			String id = campaign + "-" + post;
			int runs = executions.getOrDefault(id, 0);
			this.childReruns += Math.max(0, runs - 1);
			List<String> shas = sideEffects.commits().getOrDefault(id, List.of());
			if (runs == 0 || shas.size() != 1) {
				this.failures.add("post " + id + " ran " + runs + " time(s) and has " + shas.size() + " commit(s)");
			}
			if (!shas.isEmpty()) {
				commits.add(shas.get(0));
			}
		}
		return commits;
	}

	/** What went wrong, one line each; empty when the row passed. */
	List<String> failures() {
		return List.copyOf(this.failures);
	}

	/** The row's figures for its notes. */
	String note() {
		List<Duration> sorted = this.goOn.stream().sorted().toList();
		String p50 = sorted.isEmpty() ? "-" : seconds(sorted.get(sorted.size() / 2));
		long late = this.goOn.stream().filter((duration) -> duration.compareTo(SLACK) > 0).count();
		return this.finished + " campaign(s) finished, " + (this.finished * (POSTS.size() + 1)) + " children; "
				+ this.storedTwice + " child message(s) stored twice, " + this.childReruns + " child handler re-run(s), "
				+ this.deployReruns + " deploy(s) run again; a parent went on " + p50 + " (p50), " + max(this.goOn)
				+ " (max) after its children finished, " + late + " later than " + SLACK.toSeconds() + " s; counting only "
				+ "time with a consumer JVM up at most " + max(this.goOnUp);
	}

	private static String max(List<Duration> durations) {
		return durations.stream().max(Comparator.naturalOrder()).map(CampaignVerdict::seconds).orElse("-");
	}

	private static String seconds(Duration duration) {
		return String.format(java.util.Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
	}

	/**
	 * The consumers' logs a campaign is judged by: {@code ledger.log} ({@code <id> <delivery> <instance>
	 * <time>}), {@code deploys.log} ({@code <campaign> <shas> <instance> <time> <sequence> <key>}) and
	 * {@code deliveries.log} ({@code <consumer> <key> <sequence> <outcome> <instance>}).
	 *
	 * @param ledger the ledger lines, split
	 * @param deploys the deploy lines, split
	 * @param deliveries the delivery lines, split
	 */
	record Logs(List<String[]> ledger, List<String[]> deploys, List<String[]> deliveries, List<Instant[]> up) {

		static Logs read(List<ConsumerSlot> slots) {
			return new Logs(split(slots, "ledger.log", 4), split(slots, "deploys.log", 6),
					split(slots, "deliveries.log", 5), up(slots));
		}

		/**
		 * When each consumer JVM was up: from its console's start line to the slot's next chaos halt
		 * (or for ever).
		 */
		private static List<Instant[]> up(List<ConsumerSlot> slots) {
			List<Instant[]> up = new ArrayList<>();
			for (ConsumerSlot slot : slots) {
				List<Instant> halts = Evidence.linesOf(List.of(slot), "chaos.log").stream()
					.map((line) -> line.split(" "))
					.filter((fields) -> fields.length >= 4)
					.map((fields) -> Instant.parse(fields[3]))
					.sorted()
					.toList();
				Evidence.linesOf(List.of(slot), "console.log").stream()
					.filter((line) -> line.contains("Started SampleAgentApplication"))
					.map((line) -> Instant.parse(line.substring(0, line.indexOf(' '))))
					.forEach((start) -> up.add(new Instant[] { start,
							halts.stream().filter((halt) -> halt.isAfter(start)).findFirst().orElse(Instant.MAX) }));
			}
			return up;
		}

		/** How much of {@code [from, to]} some consumer JVM was up. */
		Duration upWithin(Instant from, Instant to) {
			List<Instant[]> clipped = this.up.stream()
				.map((span) -> new Instant[] { span[0].isBefore(from) ? from : span[0], span[1].isAfter(to) ? to : span[1] })
				.filter((span) -> span[0].isBefore(span[1]))
				.sorted(Comparator.comparing((Instant[] span) -> span[0]))
				.toList();
			Duration total = Duration.ZERO;
			Instant covered = from;
			for (Instant[] span : clipped) {
				Instant start = span[0].isAfter(covered) ? span[0] : covered;
				if (span[1].isAfter(start)) {
					total = total.plus(Duration.between(start, span[1]));
					covered = span[1];
				}
			}
			return total;
		}

		private static List<String[]> split(List<ConsumerSlot> slots, String file, int fields) {
			return Evidence.linesOf(slots, file).stream().map((line) -> line.split(" "))
				.filter((split) -> split.length >= fields).toList();
		}

		/** Per campaign, the stream sequences each of its children's keys was delivered from (any outcome). */
		Map<String, Map<String, Set<Long>>> childSequences() {
			Map<String, Map<String, Set<Long>>> children = new HashMap<>();
			Pattern child = Pattern.compile(Pattern.quote(RowRun.CAMPAIGN_CONSUMER) + "/([^/]+)/.+");
			for (String[] line : this.deliveries) {
				var matcher = child.matcher(line[1]);
				if (!line[0].equals(RowRun.CAMPAIGN_CONSUMER) && matcher.matches()) {
					children.computeIfAbsent(matcher.group(1), (campaign) -> new TreeMap<>())
						.computeIfAbsent(line[1], (key) -> new TreeSet<>())
						.add(Long.parseLong(line[2]));
				}
			}
			return children;
		}

		/**
		 * How long the campaign's parent took to go on after its children: the longer of its last
		 * post's first ledger line (written just before the post's result is stored; a post run again
		 * after a halt writes another one later) to its first deploy, and its last deploy before it
		 * finished to its ledger line.
		 */
		java.util.Optional<Gap[]> goOn(String campaign) {
			Instant done = first(this.ledger.stream().filter((line) -> line[0].equals(campaign)).toList());
			Instant deployed = first(this.deploys.stream().filter((line) -> line[0].equals(campaign)).toList());
			if (done == null || deployed == null) {
				return java.util.Optional.empty();
			}
			Instant lastPost = POSTS.stream()
				.map((post) -> first(this.ledger.stream().filter((line) -> line[0].equals(campaign + "-" + post)).toList()))
				.filter((time) -> time != null && !time.isAfter(deployed))
				.max(Comparator.naturalOrder())
				.orElse(deployed);
			Instant lastDeploy = last(this.deploys.stream().filter((line) -> line[0].equals(campaign)).toList(), done);
			return java.util.Optional.of(new Gap[] { gap(lastPost, deployed), gap(lastDeploy, done) });
		}

		private Gap gap(Instant from, Instant to) {
			return new Gap(Duration.between(from, to), upWithin(from, to));
		}

		/**
		 * A time a parent took to go on.
		 * @param wall as the clock says
		 * @param up the part of it in which some consumer JVM was up
		 */
		record Gap(Duration wall, Duration up) {
		}

		private static Instant first(List<String[]> lines) {
			return lines.stream().map((line) -> Instant.parse(line[3])).min(Comparator.naturalOrder()).orElse(null);
		}

		private static Instant last(List<String[]> lines, Instant notAfter) {
			return lines.stream().map((line) -> Instant.parse(line[3])).filter((time) -> !time.isAfter(notAfter))
				.max(Comparator.naturalOrder()).orElse(notAfter);
		}

	}

}
