package dev.exactlyonce.sample;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;

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
