package dev.exactlyonce.children;

import io.nats.client.impl.Headers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import dev.exactlyonce.children.spi.ChildFailures;
import dev.exactlyonce.nats.HeaderEncoding;
import dev.exactlyonce.operations.OperatedConsumers;
import dev.exactlyonce.operations.OperationRefusedException;
import dev.exactlyonce.waits.DecisionDelivery;
import dev.exactlyonce.waits.SignalOutcome;

/**
 * Tells a parent that its child failed. A dead-lettered child is a notice (the parent's wait is
 * resumed and its await throws {@link ChildFailedException}, but the wait stays undecided, so the
 * result of a replay that completes still wins); a discarded one is the final decision.
 */
final class ParentNotices implements ChildFailures {

	private static final Log logger = LogFactory.getLog(ParentNotices.class);

	private final Parents parents;

	private final OperatedConsumers consumers;

	private final DecisionDelivery decisions;

	private final JsonMapper mapper;

	ParentNotices(Parents parents, OperatedConsumers consumers, DecisionDelivery decisions, JsonMapper mapper) {
		this.parents = parents;
		this.consumers = consumers;
		this.decisions = decisions;
		this.mapper = mapper;
	}

	@Override
	public void deadLettering(Headers headers, String consumer, String key, String reason) {
		ParentHeaders parent = ParentHeaders.readFrom(headers);
		if (parent == null) {
			return;
		}
		String childKey = childKey(headers, key);
		try {
			SignalOutcome outcome = this.decisions.notice(this.parents.storeKey(parent, where(consumer, childKey)),
					parent.run(), parent.resultWaitName(), envelope(parent, consumer, childKey,
							ChildEnvelope.Outcome.DEAD_LETTERED, reason),
					sender(consumer, childKey), "child '" + parent.childName() + "' dead-lettered");
			logger.debug("Parent " + parent + " noticed of its dead-lettered child '" + childKey + "': " + outcome);
		}
		catch (RuntimeException ex) {
			logger.warn("The parent " + parent + " of child task '" + childKey + "' (consumer '" + consumer + "') was "
					+ "not told that the child is dead-lettered (" + ex.getMessage() + "): it learns it at its wait's "
					+ "deadline, or when the child is replayed or discarded");
		}
	}

	@Override
	public void checkDiscard(Headers headers, String consumer, String key) {
		ParentHeaders parent = ParentHeaders.readFrom(headers);
		if (parent != null && !this.consumers.declares(parent.consumer())) {
			throw OperationRefusedException.conflict("The dead letter of child task '" + childKey(headers, key)
					+ "' (consumer '" + consumer + "') names parent " + parent + ", whose consumer this application "
					+ "does not declare, so the parent could not learn that its child failed for good: discard it "
					+ "from an application that declares consumer '" + parent.consumer() + "'");
		}
	}

	@Override
	public void discarded(Headers headers, String consumer, String key, String reason) {
		ParentHeaders parent = ParentHeaders.readFrom(headers);
		if (parent == null) {
			return;
		}
		String childKey = childKey(headers, key);
		String childStoreKey = (childKey != null) ? this.consumers.storeKey(consumer, childKey) : consumer + ":?";
		this.decisions.deliver(this.parents.storeKey(parent, where(consumer, childKey)), parent.run(),
				parent.resultWaitName(), envelope(parent, consumer, childKey, ChildEnvelope.Outcome.DISCARDED, reason),
				"child:" + childStoreKey + ":discarded", sender(consumer, childKey),
				"child '" + parent.childName() + "' discarded");
	}

	private String envelope(ParentHeaders parent, String consumer, String childKey, ChildEnvelope.Outcome outcome,
			String reason) {
		return this.mapper.writeValueAsString(new ChildEnvelope(parent.childName(), childKey, consumer, outcome, null,
				(reason != null) ? reason : outcome.name().toLowerCase(java.util.Locale.ROOT)));
	}

	/** The child's key: resolved by its listener, else its message id (the key startChild gave it). */
	private static String childKey(Headers headers, String key) {
		return (key != null) ? key : HeaderEncoding.first(headers, "Nats-Msg-Id");
	}

	private static String sender(String consumer, String childKey) {
		return "child " + consumer + "/" + childKey;
	}

	private static String where(String consumer, String childKey) {
		return "consumer '" + consumer + "', key '" + childKey + "'";
	}

}
