package dev.exactlyonce.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The NATS configuration blocks of docs/security.md ("Least privilege"), read verbatim, so that the
 * tests run exactly what the page tells users to deploy.
 */
final class SecurityDocumentation {

	private static final Path PAGE = Path.of("../docs/security.md");

	private static final String WORKER_USER = "{ user: worker, password: $WORKER_PASSWORD, ";

	private static final String PROVISIONER_LEAD = "has the worker's permissions plus:";

	private SecurityDocumentation() {
	}

	/**
	 * The worker's {@code permissions: {...}} object, as the page's worker block has it.
	 * @return the permissions
	 */
	static String workerPermissions() {
		String block = codeBlock(WORKER_USER);
		int start = block.indexOf("permissions: {", block.indexOf(WORKER_USER));
		return block.substring(start, closingBrace(block, start + "permissions: ".length()) + 1) + "\n";
	}

	/**
	 * The worker's permissions plus the provisioner's lines, inserted into the worker's publish allow list.
	 * @return the provisioner's permissions
	 */
	static String provisionerPermissions() {
		String page = page();
		int lead = page.indexOf(PROVISIONER_LEAD);
		if (lead < 0) {
			throw new IllegalStateException("docs/security.md no longer says which lines the provisioner adds: \""
					+ PROVISIONER_LEAD + "\"");
		}
		String lines = codeBlockAfter(page, lead);
		String anchor = "\"$JS.API.STREAM.INFO.TASKS\",\n";
		String worker = workerPermissions();
		if (!worker.contains(anchor)) {
			throw new IllegalStateException("the worker block lost the line " + anchor);
		}
		return worker.replace(anchor, anchor + lines);
	}

	/**
	 * The page's accounts example, with the two blocks in place of its {@code ...} lines and the
	 * passwords given.
	 * @param passwords {@code $NAME} and its value, in pairs
	 * @return a nats-server configuration
	 */
	static String accounts(String... passwords) {
		String configuration = codeBlock("accounts {")
			.replace("permissions: { ... the provisioner's, as above ... }", provisionerPermissions().strip())
			.replace("permissions: { ... the worker's, as above ... }", workerPermissions().strip());
		for (int i = 0; i < passwords.length; i += 2) {
			configuration = configuration.replace(passwords[i], passwords[i + 1]);
		}
		return configuration;
	}

	private static String codeBlock(String containing) {
		String page = page();
		int at = page.indexOf(containing);
		if (at < 0) {
			throw new IllegalStateException("docs/security.md has no block holding " + containing);
		}
		return codeBlockAfter(page, page.lastIndexOf("```\n", at) - 1);
	}

	private static String codeBlockAfter(String page, int from) {
		int open = page.indexOf("```\n", from) + 4;
		return page.substring(open, page.indexOf("```\n", open));
	}

	private static int closingBrace(String text, int open) {
		int depth = 0;
		for (int i = open; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '{') {
				depth++;
			}
			else if (c == '}' && --depth == 0) {
				return i;
			}
		}
		throw new IllegalStateException("unbalanced braces in the worker block of docs/security.md");
	}

	private static String page() {
		try {
			return Files.readString(PAGE);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
