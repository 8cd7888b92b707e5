package dev.exactlyonce.sample;

/**
 * The follow-up task the marketing agent hands to the DevOps agent: deploy a committed post.
 *
 * @param taskId the marketing task it follows
 * @param sha the commit to deploy
 */
public record DeployTask(String taskId, String sha) {
}
