package dev.exactlyonce.sample;

/**
 * A campaign the CEO agent runs: three marketing posts on one topic, then one deploy of those approved.
 *
 * @param campaignId the campaign id; also its message id, so publishing it twice stores it once
 * @param topic what the posts are about
 */
public record Campaign(String campaignId, String topic) {
}
