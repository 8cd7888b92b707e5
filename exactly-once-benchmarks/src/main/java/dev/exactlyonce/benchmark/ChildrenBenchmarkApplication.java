package dev.exactlyonce.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

import dev.exactlyonce.annotation.ExactlyOnceListener;
import dev.exactlyonce.children.ChildResult;
import dev.exactlyonce.children.ChildTask;
import dev.exactlyonce.listener.ExactlyOnceContext;

/**
 * The application {@link ChildrenBenchmark} starts: a parent listener that starts {@code children}
 * child tasks and awaits them all, and a child listener that returns a small result once its parent
 * reached {@code awaitAll}, both reporting to the {@link ChildProbe} the benchmark registers.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ChildrenBenchmarkApplication {

	/** The subject children are published to. */
	static final String CHILD_SUBJECT = "childbench.children";

	@Bean
	ParentListener parentListener(ChildProbe probe) {
		return new ParentListener(probe);
	}

	@Bean
	ChildListener childListener(ChildProbe probe) {
		return new ChildListener(probe);
	}

	/**
	 * A parent task.
	 * @param parentId its key
	 * @param children how many children it starts
	 */
	record Parent(String parentId, int children) {
	}

	/**
	 * A child task.
	 * @param parentId its parent's key
	 * @param index its place among the parent's children
	 */
	record Child(String parentId, int index) {
	}

	/** The parents' listener: starts the children, then awaits them all as one wait. */
	static class ParentListener {

		private final ChildProbe probe;

		ParentListener(ChildProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.children.parents}", key = "payload.parentId")
		public void handle(Parent parent, ExactlyOnceContext context) {
			ChildProbe.Family family = this.probe.family(parent.parentId());
			family.ran();
			List<ChildTask> children = new ArrayList<>(parent.children());
			for (int i = 0; i < parent.children(); i++) {
				children.add(context.startChild("c" + i, CHILD_SUBJECT, new Child(parent.parentId(), i)));
			}
			family.awaiting();
			List<ChildResult<String>> results = context.awaitAll("all", children, String.class, Duration.ofHours(1));
			for (int i = 0; i < results.size(); i++) {
				if (!("r" + i).equals(results.get(i).get())) {
					throw new IllegalStateException("child c" + i + " of " + parent.parentId() + " answered "
							+ results.get(i).get());
				}
			}
			family.resumed();
		}

	}

	/**
	 * The children's listener (keyed by {@code Nats-Msg-Id}, the child's key): once its parent
	 * reached {@code awaitAll}, it works {@code benchmark.children.work-ms} (0) and returns.
	 */
	static class ChildListener {

		private static final long WORK_MILLIS = Long.getLong("benchmark.children.work-ms", 0);

		private final ChildProbe probe;

		ChildListener(ChildProbe probe) {
			this.probe = probe;
		}

		@ExactlyOnceListener(consumer = "${benchmark.children.children}")
		public String handle(Child child) throws InterruptedException {
			ChildProbe.Family family = this.probe.family(child.parentId());
			family.awaitParentWaiting();
			if (WORK_MILLIS > 0) {
				Thread.sleep(WORK_MILLIS);
			}
			family.childReturning();
			return "r" + child.index();
		}

	}

}
