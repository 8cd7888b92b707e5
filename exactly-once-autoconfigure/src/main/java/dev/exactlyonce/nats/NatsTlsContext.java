package dev.exactlyonce.nats;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyManagementException;
import java.security.SecureRandom;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The TLS context of the NATS connection. With host name verification on (the default), the
 * server's certificate must name the host the client dialled, as HTTPS clients require
 * (endpoint identification {@code HTTPS}: a DNS name or IP address among its subject alternative
 * names); jnats leaves that to the context, so without it any certificate of a trusted CA could
 * impersonate the server. A certificate that is refused is reported with the names it does carry
 * ({@link NamingTrustManager}).
 */
public final class NatsTlsContext {

	private NatsTlsContext() {
	}

	/**
	 * Builds the context.
	 * @param protocol the TLS protocol, e.g. {@code TLS}
	 * @param keyManagers the client's key managers (mutual TLS), or {@code null}
	 * @param trustManagers the trust managers that decide which server certificates are trusted
	 * @param verifyHostname whether the certificate must name the host dialled
	 * @return the context
	 * @throws GeneralSecurityException when the protocol is unknown or the managers are unusable
	 */
	public static SSLContext create(String protocol, KeyManager[] keyManagers, TrustManager[] trustManagers,
			boolean verifyHostname) throws GeneralSecurityException {
		SSLContext context = SSLContext.getInstance(protocol);
		context.init(keyManagers, NamingTrustManager.wrap(trustManagers), null);
		return verifyHostname ? new HostnameVerifyingContext(context) : context;
	}

	/** A context whose sockets and engines check the server's host name during the handshake. */
	private static final class HostnameVerifyingContext extends SSLContext {

		HostnameVerifyingContext(SSLContext delegate) {
			super(new Spi(delegate), delegate.getProvider(), delegate.getProtocol());
		}

	}

	private static final class Spi extends SSLContextSpi {

		private final SSLContext delegate;

		private final SSLSocketFactory sockets;

		Spi(SSLContext delegate) {
			this.delegate = delegate;
			this.sockets = new VerifyingSocketFactory(delegate.getSocketFactory());
		}

		@Override
		protected void engineInit(KeyManager[] keyManagers, TrustManager[] trustManagers, SecureRandom random)
				throws KeyManagementException {
			throw new KeyManagementException("The NATS TLS context is initialised when it is created");
		}

		@Override
		protected SSLSocketFactory engineGetSocketFactory() {
			return this.sockets;
		}

		@Override
		protected SSLServerSocketFactory engineGetServerSocketFactory() {
			return this.delegate.getServerSocketFactory();
		}

		@Override
		protected SSLEngine engineCreateSSLEngine() {
			return verifying(this.delegate.createSSLEngine());
		}

		@Override
		protected SSLEngine engineCreateSSLEngine(String host, int port) {
			return verifying(this.delegate.createSSLEngine(host, port));
		}

		@Override
		protected SSLSessionContext engineGetServerSessionContext() {
			return this.delegate.getServerSessionContext();
		}

		@Override
		protected SSLSessionContext engineGetClientSessionContext() {
			return this.delegate.getClientSessionContext();
		}

		@Override
		protected SSLParameters engineGetDefaultSSLParameters() {
			return this.delegate.getDefaultSSLParameters();
		}

		@Override
		protected SSLParameters engineGetSupportedSSLParameters() {
			return this.delegate.getSupportedSSLParameters();
		}

		private static SSLEngine verifying(SSLEngine engine) {
			SSLParameters parameters = engine.getSSLParameters();
			parameters.setEndpointIdentificationAlgorithm("HTTPS");
			engine.setSSLParameters(parameters);
			return engine;
		}

	}

	/** Creates sockets that check the server's host name during the handshake. */
	private static final class VerifyingSocketFactory extends SSLSocketFactory {

		private final SSLSocketFactory delegate;

		VerifyingSocketFactory(SSLSocketFactory delegate) {
			this.delegate = delegate;
		}

		@Override
		public String[] getDefaultCipherSuites() {
			return this.delegate.getDefaultCipherSuites();
		}

		@Override
		public String[] getSupportedCipherSuites() {
			return this.delegate.getSupportedCipherSuites();
		}

		@Override
		public Socket createSocket() throws IOException {
			return verifying(this.delegate.createSocket());
		}

		@Override
		public Socket createSocket(Socket socket, String host, int port, boolean autoClose) throws IOException {
			return verifying(this.delegate.createSocket(socket, host, port, autoClose));
		}

		@Override
		public Socket createSocket(Socket socket, InputStream consumed, boolean autoClose) throws IOException {
			return verifying(this.delegate.createSocket(socket, consumed, autoClose));
		}

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			return verifying(this.delegate.createSocket(host, port));
		}

		@Override
		public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
			return verifying(this.delegate.createSocket(host, port, localHost, localPort));
		}

		@Override
		public Socket createSocket(InetAddress host, int port) throws IOException {
			return verifying(this.delegate.createSocket(host, port));
		}

		@Override
		public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
				throws IOException {
			return verifying(this.delegate.createSocket(address, port, localAddress, localPort));
		}

		private static Socket verifying(Socket socket) {
			if (socket instanceof SSLSocket ssl) {
				SSLParameters parameters = ssl.getSSLParameters();
				parameters.setEndpointIdentificationAlgorithm("HTTPS");
				ssl.setSSLParameters(parameters);
			}
			return socket;
		}

	}

}
