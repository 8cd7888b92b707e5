package dev.exactlyonce.sample;

/**
 * A person's answer to a drafted post: the payload of the marketing task's {@code approval} signal,
 * e.g. {@code {"approved":true,"by":"ana","comment":"ship it"}}.
 *
 * @param approved whether the post may be committed and deployed
 * @param by who decided
 * @param comment why, or {@code null}
 */
public record Approval(boolean approved, String by, String comment) {
}
