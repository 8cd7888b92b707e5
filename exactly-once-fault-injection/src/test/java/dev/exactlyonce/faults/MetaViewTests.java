package dev.exactlyonce.faults;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MetaView}: when a 3-node cluster counts as ready for replicated streams, and
 * what the wait says is missing when it is not.
 */
class MetaViewTests {

	private static final String FOLLOWER = "{\"meta_cluster\":{\"name\":\"faults\",\"leader\":\"n2\",\"peer\":\"44jzkV9D\","
			+ "\"cluster_size\":3}}";

	@Test
	void aLeaderThatSeesEveryOtherNodeCurrentIsReady() {
		MetaView leader = MetaView.parse(leader(true, true));

		assertThat(leader.leader()).isEqualTo("n2");
		assertThat(leader.peers()).containsExactly(Map.entry("n1", true), Map.entry("n3", true));
		assertThat(MetaView.missing(views(MetaView.parse(FOLLOWER), leader, MetaView.parse(FOLLOWER)))).isNull();
	}

	@Test
	void aPeerTheLeaderSeesBehindIsNamed() {
		assertThat(MetaView.missing(views(MetaView.parse(FOLLOWER), MetaView.parse(leader(true, false)),
				MetaView.parse(FOLLOWER))))
			.startsWith("meta leader n2 sees n3 not current");
	}

	@Test
	void aPeerTheLeaderDoesNotListYetIsNamed() {
		String onlyN1 = "{\"meta_cluster\":{\"leader\":\"n2\",\"replicas\":[{\"name\":\"n1\",\"current\":true}]}}";

		assertThat(MetaView.missing(views(MetaView.parse(FOLLOWER), MetaView.parse(onlyN1), MetaView.parse(FOLLOWER))))
			.startsWith("meta leader n2 sees n3 not yet a peer");
	}

	@Test
	void nodesWithoutAnAnswerOrALeaderAreNamed() {
		MetaView electing = MetaView.parse("{\"meta_cluster\":{\"name\":\"faults\",\"cluster_size\":3}}");

		assertThat(MetaView.missing(views(null, MetaView.parse(leader(true, true)), electing)))
			.isEqualTo("n1 does not answer /jsz; n3 knows no meta leader");
		assertThat(MetaView.parse("{\"server_id\":\"x\"}").leader()).isNull();
	}

	@Test
	void nodesFollowingDifferentLeadersAreNotReady() {
		MetaView followsN1 = MetaView.parse(FOLLOWER.replace("\"n2\"", "\"n1\""));

		assertThat(MetaView.missing(views(followsN1, MetaView.parse(leader(true, true)), MetaView.parse(FOLLOWER))))
			.isEqualTo("nodes disagree on the meta leader (node=leader {n1=n1, n2=n2, n3=n2})");
	}

	/** What n2's {@code /jsz} answers as meta leader (shape of nats-server 2.9). */
	private static String leader(boolean n1Current, boolean n3Current) {
		return "{\"server_id\":\"x\",\"meta_cluster\":{\"name\":\"faults\",\"leader\":\"n2\",\"peer\":\"44jzkV9D\","
				+ "\"replicas\":[{\"name\":\"n1\",\"current\":" + n1Current + ",\"active\":62035571,\"peer\":\"fjFyEjc1\"},"
				+ "{\"name\":\"n3\",\"current\":" + n3Current + ",\"active\":61569289,\"peer\":\"BXScrY9i\"}],"
				+ "\"cluster_size\":3}}";
	}

	private static Map<String, MetaView> views(MetaView n1, MetaView n2, MetaView n3) {
		Map<String, MetaView> views = new LinkedHashMap<>();
		views.put("n1", n1);
		views.put("n2", n2);
		views.put("n3", n3);
		return views;
	}

}
