package dev.exactlyonce.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.nats.client.support.JsonParseException;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;

/**
 * One cluster node's own view of the JetStream meta group, from {@code meta_cluster} of its
 * {@code /jsz}: the meta leader it follows and, on the leader, whether each other peer is current.
 *
 * @param leader the meta leader the node knows, or {@code null} while none is elected
 * @param peers on the leader, each other peer by name and whether it is current (and not
 * offline); empty on the other nodes
 */
record MetaView(String leader, Map<String, Boolean> peers) {

	/**
	 * Reads the view from a {@code /jsz} answer.
	 * @param jsz the JSON answer
	 * @return the view (no leader when the answer has no meta group yet)
	 * @throws IllegalStateException when the answer is not JSON
	 */
	static MetaView parse(String jsz) {
		JsonValue root;
		try {
			root = JsonParser.parse(jsz);
		}
		catch (JsonParseException ex) {
			throw new IllegalStateException("/jsz answered no JSON: " + ex.getMessage(), ex);
		}
		JsonValue meta = (root.map != null) ? root.map.get("meta_cluster") : null;
		if (meta == null || meta.map == null) {
			return new MetaView(null, Map.of());
		}
		JsonValue leader = meta.map.get("leader");
		Map<String, Boolean> peers = new LinkedHashMap<>();
		JsonValue replicas = meta.map.get("replicas");
		if (replicas != null && replicas.array != null) {
			for (JsonValue replica : replicas.array) {
				JsonValue name = replica.map.get("name");
				peers.put((name != null) ? name.string : "?", isTrue(replica, "current") && !isTrue(replica, "offline"));
			}
		}
		return new MetaView((leader != null) ? leader.string : null, peers);
	}

	private static boolean isTrue(JsonValue object, String field) {
		JsonValue value = object.map.get(field);
		return value != null && Boolean.TRUE.equals(value.bool);
	}

	/**
	 * What keeps a cluster from being ready for replicated streams: a node that does not answer,
	 * no meta leader, nodes that disagree on it, or a peer the leader does not list as current.
	 * @param views each node's view by node name, {@code null} for a node that did not answer
	 * @return what is missing, or {@code null} when every node follows one leader that sees every
	 * other node current
	 */
	static String missing(Map<String, MetaView> views) {
		List<String> problems = new ArrayList<>();
		views.forEach((node, view) -> {
			if (view == null) {
				problems.add(node + " does not answer /jsz");
			}
			else if (view.leader() == null) {
				problems.add(node + " knows no meta leader");
			}
		});
		if (!problems.isEmpty()) {
			return String.join("; ", problems);
		}
		List<String> leaders = views.values().stream().map(MetaView::leader).distinct().toList();
		if (leaders.size() > 1) {
			Map<String, String> followed = new LinkedHashMap<>();
			views.forEach((node, view) -> followed.put(node, view.leader()));
			return "nodes disagree on the meta leader (node=leader " + followed + ")";
		}
		String leader = leaders.get(0);
		MetaView leading = views.get(leader);
		if (leading == null) {
			return "meta leader " + leader + " is not one of the nodes " + views.keySet();
		}
		for (String node : views.keySet()) {
			if (!node.equals(leader) && !Objects.equals(leading.peers().get(node), Boolean.TRUE)) {
				problems.add(node + (leading.peers().containsKey(node) ? " not current" : " not yet a peer"));
			}
		}
		return problems.isEmpty() ? null
				: "meta leader " + leader + " sees " + String.join(", ", problems) + " (its peers " + leading.peers() + ")";
	}

}
