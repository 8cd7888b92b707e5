package dev.exactlyonce.nats;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager that decides as the one it wraps, and when it refuses a server's certificate
 * says which names (subject and subject alternative names) and issuer the certificate carries, so a
 * start-up failure can name them next to the host that was dialled. Where the host name is verified
 * (endpoint identification {@code HTTPS}) and the host dialled is a name, the certificate must carry
 * that name as a DNS subject alternative name: the JDK would otherwise accept a certificate with no
 * DNS name whose subject's CN is the host (RFC 2818's fallback), e.g. one issued for an address.
 */
final class NamingTrustManager extends X509ExtendedTrustManager {

	private final X509ExtendedTrustManager delegate;

	private NamingTrustManager(X509ExtendedTrustManager delegate) {
		this.delegate = delegate;
	}

	/** The managers, each X.509 one wrapped; others as they are. */
	static TrustManager[] wrap(TrustManager[] managers) {
		if (managers == null) {
			return null;
		}
		TrustManager[] wrapped = new TrustManager[managers.length];
		for (int i = 0; i < managers.length; i++) {
			wrapped[i] = (managers[i] instanceof X509ExtendedTrustManager extended) ? new NamingTrustManager(extended)
					: managers[i];
		}
		return wrapped;
	}

	@Override
	public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
			throws CertificateException {
		naming(chain, () -> {
			this.delegate.checkServerTrusted(chain, authType, socket);
			if (socket instanceof SSLSocket ssl) {
				requireDnsName(chain, ssl.getSSLParameters().getEndpointIdentificationAlgorithm(),
						peerHost(ssl.getHandshakeSession()));
			}
		});
	}

	@Override
	public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
			throws CertificateException {
		naming(chain, () -> {
			this.delegate.checkServerTrusted(chain, authType, engine);
			if (engine != null) {
				requireDnsName(chain, engine.getSSLParameters().getEndpointIdentificationAlgorithm(),
						engine.getPeerHost());
			}
		});
	}

	@Override
	public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
		naming(chain, () -> this.delegate.checkServerTrusted(chain, authType));
	}

	@Override
	public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
			throws CertificateException {
		this.delegate.checkClientTrusted(chain, authType, socket);
	}

	@Override
	public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
			throws CertificateException {
		this.delegate.checkClientTrusted(chain, authType, engine);
	}

	@Override
	public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
		this.delegate.checkClientTrusted(chain, authType);
	}

	@Override
	public X509Certificate[] getAcceptedIssuers() {
		return this.delegate.getAcceptedIssuers();
	}

	private static String peerHost(SSLSession session) {
		return (session != null) ? session.getPeerHost() : null;
	}

	/**
	 * Refuses a certificate without DNS names for a host dialled by name where host names are verified
	 * (the delegate accepted it by its subject's CN).
	 */
	private static void requireDnsName(X509Certificate[] chain, String identification, String host)
			throws CertificateException {
		if (!"HTTPS".equalsIgnoreCase(identification) || host == null || isAddress(host) || chain == null
				|| chain.length == 0 || alternativeNames(chain[0]).stream().anyMatch((name) -> name.startsWith("DNS:"))) {
			return;
		}
		throw new CertificateException("No DNS subject alternative name in the certificate of '" + host
				+ "': a host dialled by name is matched with the certificate's DNS names only, never with its subject's CN;"
				+ " issue the server a certificate with DNS:" + host);
	}

	private static boolean isAddress(String host) {
		return host.indexOf(':') >= 0 || host.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
	}

	/** Runs a check of the server's chain; a refusal is rethrown naming the certificate. */
	private static void naming(X509Certificate[] chain, ServerCheck check) throws CertificateException {
		try {
			check.run();
		}
		catch (CertificateException ex) {
			throw named(ex, chain);
		}
	}

	/** One of the delegate's checks of a server's chain. */
	@FunctionalInterface
	private interface ServerCheck {

		void run() throws CertificateException;

	}

	private static CertificateException named(CertificateException refusal, X509Certificate[] chain) {
		if (chain == null || chain.length == 0) {
			return refusal;
		}
		X509Certificate server = chain[0];
		return new CertificateException(refusal.getMessage() + " (the server's certificate is for "
				+ server.getSubjectX500Principal().getName() + ", names " + alternativeNames(server) + ", issued by "
				+ server.getIssuerX500Principal().getName() + ")", refusal);
	}

	private static List<String> alternativeNames(X509Certificate certificate) {
		List<String> names = new ArrayList<>();
		try {
			Collection<List<?>> entries = certificate.getSubjectAlternativeNames();
			if (entries != null) {
				for (List<?> entry : entries) {
					names.add(kind((Integer) entry.get(0)) + ":" + entry.get(1));
				}
			}
		}
		catch (CertificateParsingException ex) {
			names.add("(unreadable: " + ex.getMessage() + ")");
		}
		return names;
	}

	private static String kind(int type) {
		return switch (type) {
			case 2 -> "DNS";
			case 7 -> "IP";
			default -> "type " + type;
		};
	}

}
