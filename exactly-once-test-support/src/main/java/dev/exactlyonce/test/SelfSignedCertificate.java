package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code localhost} and {@code 127.0.0.1} with its private key, made
 * with {@code openssl} in a temporary directory, valid for two days: a test server presents it, and
 * a client trusts exactly it. {@link #close()} deletes the directory (and whatever a test put next to
 * the certificate); a directory a killed test leaves behind goes when the JVM exits.
 *
 * @param certificate the certificate, PEM
 * @param privateKey the unencrypted private key, PEM
 */
public record SelfSignedCertificate(Path certificate, Path privateKey) implements AutoCloseable {

	/**
	 * Makes a new key pair and certificate.
	 * @return the certificate and key files
	 */
	public static SelfSignedCertificate create() {
		return create("localhost", "DNS:localhost,IP:127.0.0.1");
	}

	/**
	 * Makes a new key pair and a certificate for other names.
	 * @param commonName the subject's common name
	 * @param subjectAltNames the subject alternative names in openssl's form, e.g. {@code DNS:evil.example}
	 * @return the certificate and key files
	 */
	public static SelfSignedCertificate create(String commonName, String subjectAltNames) {
		try {
			Path directory = Files.createTempDirectory("exactlyonce-tls-");
			Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(directory), "exactlyonce-tls-cleanup"));
			Path certificate = directory.resolve("cert.pem");
			Path key = directory.resolve("key.pem");
			Process openssl = new ProcessBuilder(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
					"-keyout", key.toString(), "-out", certificate.toString(), "-days", "2", "-subj", "/CN=" + commonName,
					"-addext", "subjectAltName=" + subjectAltNames))
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("openssl.log").toFile())
				.start();
			if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
				throw new IllegalStateException("openssl could not make a certificate; see " + directory);
			}
			return new SelfSignedCertificate(certificate, key);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while making a certificate", ex);
		}
	}

	/** Deletes the directory of the certificate and key, with everything in it. */
	@Override
	public void close() {
		delete(this.certificate.getParent());
	}

	private static void delete(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + directory, ex);
		}
	}

}
