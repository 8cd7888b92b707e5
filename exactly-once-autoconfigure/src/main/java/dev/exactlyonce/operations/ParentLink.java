package dev.exactlyonce.operations;

/**
 * The task that started a child task, found through the child's key: the parent's journal names
 * the child by that key.
 *
 * @param consumer the consumer whose listener runs the parent
 * @param key the parent's key, without namespace
 * @param childName the name of the parent's step that started the child
 */
public record ParentLink(String consumer, String key, String childName) {
}
