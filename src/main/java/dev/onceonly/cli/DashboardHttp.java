package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The embedded Jetty of {@code onceonly dashboard}, kept apart from the command so that picocli can
 * load the command (for {@code --help}) where Jetty, an optional dependency, is absent.
 *
 * <p>It stops once: on {@link #close()} (the command's thread is interrupted, or the server ended),
 * or from the JVM's shutdown hook on Ctrl-C, which stops the server and closes the store before the
 * JVM exits.
 */
final class DashboardHttp implements AutoCloseable {
  private final Server server;
  private final ServerConnector connector;
  private final OnceOnly once;
  private final Thread hook;
  private final boolean tls;
  private boolean stopped;

  private DashboardHttp(Server server, ServerConnector connector, OnceOnly once, boolean tls) {
    this.server = server;
    this.connector = connector;
    this.once = once;
    this.tls = tls;
    this.hook = new Thread(this::stop, "onceonly-dashboard-shutdown");
  }

  /**
   * Fails with a clear line when Jetty is not on the class path (the library's jar without the
   * command-line tool's dependencies).
   */
  static void checkPresent() {
    try {
      Class.forName("org.eclipse.jetty.server.Server", false, DashboardHttp.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new CliException(
          CliException.UNREACHABLE,
          "Jetty is missing (an optional dependency of the library): put"
              + " org.eclipse.jetty.ee10:jetty-ee10-servlet on the class path, or run"
              + " target/onceonly-cli.jar");
    }
  }

  /**
   * Serves {@code servlet} at the root of {@code host:port}. On a failure to start, the store is
   * closed and nothing is left listening.
   */
  static DashboardHttp start(DashboardServlet servlet, String host, int port, OnceOnly once) {
    return start(servlet, host, port, once, null, false);
  }

  /**
   * Serves {@code servlet} as {@link #start(DashboardServlet, String, int, OnceOnly)} does, over
   * TLS when {@code tls} is given; with {@code trustForwarded}, a request whose {@code
   * X-Forwarded-Proto} (or {@code Forwarded}) says HTTPS counts as secure, as behind a TLS proxy.
   */
  static DashboardHttp start(
      DashboardServlet servlet,
      String host,
      int port,
      OnceOnly once,
      DashboardTls tls,
      boolean trustForwarded) {
    Server server = new Server();
    HttpConfiguration config = DashboardJetty.httpConfiguration();
    if (trustForwarded) {
      config.addCustomizer(new ForwardedRequestCustomizer());
    }
    ServerConnector connector;
    if (tls == null) {
      connector = new ServerConnector(server, new HttpConnectionFactory(config));
    } else {
      SecureRequestCustomizer secure = new SecureRequestCustomizer();
      secure.setSniHostCheck(false); // the certificate names this machine, the URL may not
      config.addCustomizer(secure);
      SslContextFactory.Server ssl = new SslContextFactory.Server();
      ssl.setKeyStore(tls.keyStore());
      ssl.setKeyStorePassword(tls.password());
      connector =
          new ServerConnector(
              server, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(config));
    }
    DashboardHttp http = new DashboardHttp(server, connector, once, tls != null);
    return http.serve(servlet, host, port);
  }

  private DashboardHttp serve(DashboardServlet servlet, String host, int port) {
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    // a bulk action's confirmation carries the dead letters it reviewed, up to 1,000 of them
    context.setMaxFormContentSize(2 * 1024 * 1024);
    context.addServlet(new ServletHolder(servlet), "/*");
    context.setErrorHandler(DashboardJetty.errorHandler());
    server.setErrorHandler(DashboardJetty.errorHandler());
    server.setHandler(DashboardJetty.guarded(context));
    server.setStopAtShutdown(false); // the hook below stops it, and closes the store after it
    DashboardHttp http = this;
    try {
      server.start();
    } catch (Exception e) {
      http.stop();
      throw new CliException(
          CliException.USAGE,
          "cannot listen on " + host + ":" + port + ": " + Target.firstLine(e.getMessage()));
    }
    Runtime.getRuntime().addShutdownHook(http.hook);
    return http;
  }

  /** {@return the dashboard's URL, with the port the server got} */
  String url() {
    String h = DashboardTls.usableHost(connector.getHost());
    String shown = h.contains(":") ? "[" + h + "]" : h;
    return (tls ? "https://" : "http://") + shown + ":" + connector.getLocalPort() + "/";
  }

  /**
   * Waits until the server stops (Ctrl-C) or this thread is interrupted (how a caller that runs the
   * tool in its own process stops it), keeping the interrupt for the caller.
   */
  void awaitStop() {
    try {
      server.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the server, then closes the store; once, whoever calls first. */
  private synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      server.stop();
    } catch (Exception e) {
      // Stopping a server that failed to start, or stopping it twice: nothing is left to release.
    } finally {
      once.close();
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException | IllegalArgumentException e) {
      // the JVM is already shutting down (the hook runs or ran), or it was never added
    }
  }
}
