package dev.exactlyonce.testapp;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * A minimal application with the exactly-once listeners of the integration tests, started as
 * separate instances by them.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ RecordingTaskHandler.class, SteppedTaskHandler.class, TransactionalPostHandler.class,
		ApprovalTaskHandler.class, CeoTaskHandler.class, CrewTaskHandler.class, LimitedTaskHandler.class, CfoTaskHandler.class,
		NestedLimitTaskHandler.class, SealedOutcomeTaskHandler.class, TestUserFilter.class })
public class TestAgentApplication {

}
