package dev.exactlyonce.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for {@code localhost} and {@code 127.0.0.1} with its private key, made
 * with {@code openssl} in a temporary directory, valid for two days: a test server presents it, and
 * a client trusts exactly it.
 *
 * @param certificate the certificate, PEM
 * @param privateKey the unencrypted private key, PEM
 */
public record SelfSignedCertificate(Path certificate, Path privateKey) {

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

}
