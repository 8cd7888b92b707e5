package dev.exactlyonce.limits;

/**
 * How much of a limit is in use, summed over its keys, as its KV entries say (a slot whose holder died
 * counts until a task next takes or gives back one of that key).
 *
 * @param limit the limit
 * @param keys the keys with an entry (the holders and waiters of the first 1,000 are summed)
 * @param holders the tasks holding a slot
 * @param waiting the tasks queued
 */
public record LimitUsage(LimitDefinition limit, int keys, int holders, int waiting) {
}
