package dev.exactlyonce.provision;

/** Stream retention policy. */
public enum Retention {

	/** Keep messages until limits are reached. */
	LIMITS,

	/** Remove a message once acked by its consumer. */
	WORKQUEUE,

	/** Keep messages while consumers are interested. */
	INTEREST

}
