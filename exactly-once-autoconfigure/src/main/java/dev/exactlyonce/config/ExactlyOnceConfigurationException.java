package dev.exactlyonce.config;

/**
 * Thrown at start-up when the {@code exactlyonce.*} configuration breaks an invariant the
 * pipeline relies on. Carries the fix, which the failure analyzer prints as the action.
 */
public class ExactlyOnceConfigurationException extends RuntimeException {

	private final String problem;

	private final String action;

	/**
	 * Creates the exception.
	 * @param problem what is wrong, naming the property
	 * @param action how to fix it
	 */
	public ExactlyOnceConfigurationException(String problem, String action) {
		this(problem, action, null);
	}

	/**
	 * Creates the exception with the failure behind it.
	 * @param problem what is wrong, naming the property
	 * @param action how to fix it
	 * @param cause the underlying failure (never carrying secrets), or {@code null}
	 */
	public ExactlyOnceConfigurationException(String problem, String action, Throwable cause) {
		super(sentence(problem) + " " + action, cause);
		this.problem = problem;
		this.action = action;
	}

	/**
	 * What is wrong, naming the property.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * What is wrong, as a sentence.
	 * @return the problem, ending with a full stop unless it already ends with one or a question mark
	 */
	public String getProblemSentence() {
		return sentence(this.problem);
	}

	private static String sentence(String problem) {
		return (problem.endsWith(".") || problem.endsWith("?")) ? problem : problem + ".";
	}

	/**
	 * How to fix the problem.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
