package dev.exactlyonce.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.util.unit.DataSize;

import dev.exactlyonce.listener.AbandonedPolicy;
import dev.exactlyonce.provision.ConsumerDeclaration;
import dev.exactlyonce.provision.DeliverFrom;

/**
 * Settings of one durable pull consumer, bound from {@code exactlyonce.consumers.<name>.*}: what the
 * server gets ({@link #toDeclaration(String)}) and how this application's listener works on it.
 */
public class ConsumerProperties {

	/** Stream the consumer reads. */
	private String stream;

	/** Subject filter; the whole stream when unset. */
	private String filterSubject;

	/** How long the server waits for an ack before redelivering. */
	private Duration ackWait = Duration.ofSeconds(30);

	/** Maximum deliveries of one message; must exceed the number of backoff entries. */
	private long maxDeliver = 5;

	/** Redelivery delays per attempt; the server then uses backoff[0] as the first ack wait. */
	private List<Duration> backoff = new ArrayList<>();

	/** Maximum unacknowledged messages, including failed ones waiting out their retry delay. */
	private long maxAckPending = 1000;

	/** Where a new consumer starts reading. */
	private DeliverFrom deliverPolicy = DeliverFrom.ALL;

	/** Interval of working acks and lease renewals; a third of the shorter of effective ack wait and lease when unset. */
	private Duration workingAckInterval;

	/** Number of messages handled in parallel by one application instance. */
	private int concurrency = 1;

	/** What to do with a claim whose previous attempt died mid-work. */
	private AbandonedPolicy onAbandoned = AbandonedPolicy.RETRY;

	/** Maximum time a single pull request waits for messages. */
	private Duration pullExpiry = Duration.ofSeconds(2);

	/** Redelivery delay after a failed attempt when no backoff is declared. */
	private Duration retryDelay = Duration.ofSeconds(5);

	/** Subject dead letters are published on; deadletter.STREAM.CONSUMER when unset. */
	private String deadLetterSubject;

	/** Largest payload handed to the listener; larger messages are dead-lettered unread. */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/** Exception types (and subtypes) that dead-letter this consumer's messages at once. */
	private List<Class<? extends Throwable>> nonRetryableExceptions = new ArrayList<>();

	/**
	 * Store namespace of this consumer's task keys ({@code <namespace>:<key>}); the consumer's name
	 * when unset. Every application that declares the consumer derives its tasks' keys from it,
	 * also without a listener on it (a child's result reaching its parent, operator actions), and a
	 * listener's own {@code @ExactlyOnceListener(namespace)} must not differ from it.
	 */
	private String namespace;

	public String getStream() {
		return this.stream;
	}

	public void setStream(String stream) {
		this.stream = stream;
	}

	public String getFilterSubject() {
		return this.filterSubject;
	}

	public void setFilterSubject(String filterSubject) {
		this.filterSubject = filterSubject;
	}

	public Duration getAckWait() {
		return this.ackWait;
	}

	public void setAckWait(Duration ackWait) {
		this.ackWait = ackWait;
	}

	public long getMaxDeliver() {
		return this.maxDeliver;
	}

	public void setMaxDeliver(long maxDeliver) {
		this.maxDeliver = maxDeliver;
	}

	public List<Duration> getBackoff() {
		return this.backoff;
	}

	public void setBackoff(List<Duration> backoff) {
		this.backoff = backoff;
	}

	public long getMaxAckPending() {
		return this.maxAckPending;
	}

	public void setMaxAckPending(long maxAckPending) {
		this.maxAckPending = maxAckPending;
	}

	public DeliverFrom getDeliverPolicy() {
		return this.deliverPolicy;
	}

	public void setDeliverPolicy(DeliverFrom deliverPolicy) {
		this.deliverPolicy = deliverPolicy;
	}

	public Duration getWorkingAckInterval() {
		return this.workingAckInterval;
	}

	public void setWorkingAckInterval(Duration workingAckInterval) {
		this.workingAckInterval = workingAckInterval;
	}

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public AbandonedPolicy getOnAbandoned() {
		return this.onAbandoned;
	}

	public void setOnAbandoned(AbandonedPolicy onAbandoned) {
		this.onAbandoned = onAbandoned;
	}

	public Duration getPullExpiry() {
		return this.pullExpiry;
	}

	public void setPullExpiry(Duration pullExpiry) {
		this.pullExpiry = pullExpiry;
	}

	public Duration getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(Duration retryDelay) {
		this.retryDelay = retryDelay;
	}

	public String getDeadLetterSubject() {
		return this.deadLetterSubject;
	}

	public void setDeadLetterSubject(String deadLetterSubject) {
		this.deadLetterSubject = deadLetterSubject;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public List<Class<? extends Throwable>> getNonRetryableExceptions() {
		return this.nonRetryableExceptions;
	}

	public void setNonRetryableExceptions(List<Class<? extends Throwable>> nonRetryableExceptions) {
		this.nonRetryableExceptions = nonRetryableExceptions;
	}

	public String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(String namespace) {
		this.namespace = namespace;
	}

	/**
	 * The consumer these settings declare to the server.
	 * @param name the durable name
	 * @return the declaration
	 */
	public ConsumerDeclaration toDeclaration(String name) {
		return new ConsumerDeclaration(name, this.stream, this.filterSubject, this.ackWait, this.maxDeliver,
				this.backoff, this.maxAckPending, this.deliverPolicy);
	}

}
