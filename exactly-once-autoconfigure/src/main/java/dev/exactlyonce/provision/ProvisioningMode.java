package dev.exactlyonce.provision;

/** How declared streams and consumers are reconciled with the server at start-up. */
public enum ProvisioningMode {

	/** Create what is missing and update what the server allows. */
	CREATE_OR_UPDATE,

	/** Fail start-up when something is missing or differs. */
	VALIDATE,

	/** Do nothing; the streams and consumers are managed elsewhere. */
	NONE

}
