package dev.exactlyonce.it;

import org.junit.jupiter.api.Test;

import dev.exactlyonce.publish.ExactlyOncePublisher;
import dev.exactlyonce.publish.PublishResult;
import dev.exactlyonce.testapp.TaskAssignment;
import dev.exactlyonce.testapp.TestInstances;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publishing the same message id twice inside the duplicate window stores one message.
 */
class PublisherDedupIntegrationTests extends NatsIntegrationTestSupport {

	@Override
	protected void configure(TestInstances instances) {
		instances.with("exactlyonce.listener.auto-startup", "false");
	}

	@Test
	void sameMessageIdTwiceStoresOneMessageAndReportsTheDuplicate() throws Exception {
		ExactlyOncePublisher publisher = this.instances.start("publisher").bean(ExactlyOncePublisher.class);
		PublishResult first = publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");
		PublishResult second = publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-1"), "t-1");
		PublishResult other = publisher.publish("agents.marketing.tasks.blog-post", TaskAssignment.of("t-2"), "t-2");

		assertThat(first.duplicate()).isFalse();
		assertThat(second.duplicate()).isTrue();
		assertThat(second.streamSequence()).isEqualTo(first.streamSequence());
		assertThat(second.stream()).isEqualTo("TASKS");
		assertThat(other.duplicate()).isFalse();
		assertThat(other.streamSequence()).isEqualTo(first.streamSequence() + 1);
		try (JetStreamProbe probe = new JetStreamProbe(this.nats.url())) {
			assertThat(probe.stream("TASKS").getStreamState().getMsgCount()).isEqualTo(2);
		}
	}

}
