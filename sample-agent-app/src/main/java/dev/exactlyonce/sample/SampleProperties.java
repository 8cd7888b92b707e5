package dev.exactlyonce.sample;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample agents, bound from {@code sample.*}.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/** How long the simulated model call of the marketing agent takes. */
	private Duration workDuration = Duration.ofSeconds(3);

	/** Directory of the written posts and of ledger.log. */
	private Path outputDir = Path.of("out");

	/** Name of this instance in the ledger; host name and process id when unset. */
	private String instanceId;

	/**
	 * Git repository the marketing agent commits its posts to; {@code output-dir} when unset. Give
	 * instances one shared repository so the commit probe sees the commits of the others.
	 */
	private Path repository;

	/**
	 * Whether the commit step has its probe (find the task's commit by its {@code Task-Id} trailer)
	 * and commits only when that finds none, under the repository's lock, so a paused instance that
	 * resumes inside the step commits nothing twice; false shows what a step without a probe does
	 * after a crash inside it.
	 */
	private boolean commitProbe = true;

	/**
	 * Topics the marketing agent refuses ({@link RejectedTopicException}, dead-lettered at once): a
	 * stand-in for a bug; clearing it while the application runs is the "fix", after which the
	 * dead letters can be replayed.
	 */
	private Set<String> rejectedTopics = new LinkedHashSet<>();

	/**
	 * Whether the marketing agent waits for a person's approval (the signal {@code approval}) between
	 * its draft and its commit; false commits every draft at once.
	 */
	private boolean approvalRequired = true;

	/**
	 * Whether every settled delivery is recorded in {@code <output-dir>/deliveries.log} (consumer, key,
	 * stream sequence, outcome), for the fault-injection suite's count of messages stored per key.
	 */
	private boolean deliveryLog;

	public boolean isDeliveryLog() {
		return this.deliveryLog;
	}

	public void setDeliveryLog(boolean deliveryLog) {
		this.deliveryLog = deliveryLog;
	}

	/** How long a draft waits for its approval; expired after that, without a commit. */
	private Duration approvalTimeout = Duration.ofDays(7);

	/**
	 * The limit (declared under {@code exactlyonce.limits}) the marketing agent's listener runs under;
	 * empty for none. When set, the agent also writes {@code <output-dir>/holds.log}: a {@code start}
	 * line as its handler's first act and an {@code end} line as its last, so a limit's holders can be
	 * counted from outside.
	 */
	private String limit = "";

	/** The key expression within {@code limit} (SpEL over payload, headers and subject); empty for one key. */
	private String limitKey = "";

	public String getLimit() {
		return this.limit;
	}

	public void setLimit(String limit) {
		this.limit = limit;
	}

	public String getLimitKey() {
		return this.limitKey;
	}

	public void setLimitKey(String limitKey) {
		this.limitKey = limitKey;
	}

	public boolean isApprovalRequired() {
		return this.approvalRequired;
	}

	public void setApprovalRequired(boolean approvalRequired) {
		this.approvalRequired = approvalRequired;
	}

	public Duration getApprovalTimeout() {
		return this.approvalTimeout;
	}

	public void setApprovalTimeout(Duration approvalTimeout) {
		this.approvalTimeout = approvalTimeout;
	}

	public Set<String> getRejectedTopics() {
		return this.rejectedTopics;
	}

	public void setRejectedTopics(Set<String> rejectedTopics) {
		this.rejectedTopics = rejectedTopics;
	}

	public Duration getWorkDuration() {
		return this.workDuration;
	}

	public void setWorkDuration(Duration workDuration) {
		this.workDuration = workDuration;
	}

	public Path getOutputDir() {
		return this.outputDir;
	}

	public void setOutputDir(Path outputDir) {
		this.outputDir = outputDir;
	}

	public String getInstanceId() {
		return this.instanceId;
	}

	public void setInstanceId(String instanceId) {
		this.instanceId = instanceId;
	}

	public Path getRepository() {
		return this.repository;
	}

	public void setRepository(Path repository) {
		this.repository = repository;
	}

	/** The git repository of the posts: {@code repository}, or {@code output-dir} when unset. */
	public Path resolvedRepository() {
		return (this.repository != null) ? this.repository : this.outputDir;
	}

	public boolean isCommitProbe() {
		return this.commitProbe;
	}

	public void setCommitProbe(boolean commitProbe) {
		this.commitProbe = commitProbe;
	}

	/** The instance id, or host name and process id when unset. */
	public String resolvedInstanceId() {
		if (this.instanceId != null && !this.instanceId.isBlank()) {
			return this.instanceId;
		}
		try {
			return InetAddress.getLocalHost().getHostName() + "-" + ManagementFactory.getRuntimeMXBean().getPid();
		}
		catch (UnknownHostException ex) {
			return "pid-" + ManagementFactory.getRuntimeMXBean().getPid();
		}
	}

}
