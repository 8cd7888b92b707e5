package dev.exactlyonce.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;

/**
 * A NATS operator, its system account, one account with JetStream and one user, made in the test:
 * the server's operator-mode configuration (memory resolver) and the user's credentials file (user JWT signed by
 * the account, and the user's seed), as {@code nsc} would write them.
 *
 * @param serverConfiguration the nats-server configuration lines
 * @param credentialsFile the user's {@code .creds} file
 * @param userJwt the user JWT inside it
 * @param userSeed the seed inside it
 */
record OperatorCredentials(String serverConfiguration, Path credentialsFile, String userJwt, String userSeed) {

	private static final String OPERATOR_CLAIM = "{\"type\":\"operator\",\"version\":2}";

	private static final String SYSTEM_ACCOUNT_CLAIM = "{\"type\":\"account\",\"version\":2}";

	private static final String ACCOUNT_CLAIM = "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,\"imports\":-1,"
			+ "\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1,\"mem_storage\":-1,\"disk_storage\":-1,"
			+ "\"streams\":-1,\"consumer\":-1},\"type\":\"account\",\"version\":2}";

	static OperatorCredentials create(Path directory) throws Exception {
		NKey operator = NKey.createOperator(null);
		NKey system = NKey.createAccount(null);
		NKey account = NKey.createAccount(null);
		NKey user = NKey.createUser(null);
		String operatorKey = new String(operator.getPublicKey());
		String systemKey = new String(system.getPublicKey());
		String accountKey = new String(account.getPublicKey());
		long now = JwtUtils.currentTimeSeconds();
		String operatorJwt = JwtUtils.issueJWT(operator, operatorKey, "test-operator", Duration.ofDays(1), now,
				operatorKey, () -> OPERATOR_CLAIM);
		String systemJwt = JwtUtils.issueJWT(operator, systemKey, "SYS", Duration.ofDays(1), now, operatorKey,
				() -> SYSTEM_ACCOUNT_CLAIM);
		String accountJwt = JwtUtils.issueJWT(operator, accountKey, "agents", Duration.ofDays(1), now, operatorKey,
				() -> ACCOUNT_CLAIM);
		String userJwt = JwtUtils.issueUserJWT(account, accountKey, new String(user.getPublicKey()));
		String seed = new String(user.getSeed());
		Path credentials = Files.writeString(directory.resolve("worker.creds"),
				"-----BEGIN NATS USER JWT-----\n" + userJwt + "\n------END NATS USER JWT------\n\n"
						+ "-----BEGIN USER NKEY SEED-----\n" + seed + "\n------END USER NKEY SEED------\n");
		String configuration = "operator: \"" + operatorJwt + "\"\nsystem_account: " + systemKey
				+ "\nresolver: MEMORY\nresolver_preload: {\n  " + systemKey + ": \"" + systemJwt + "\"\n  " + accountKey
				+ ": \"" + accountJwt + "\"\n}\n";
		return new OperatorCredentials(configuration, credentials, userJwt, seed);
	}

}
