package dev.onceonly.cli;

import dev.onceonly.OnceOnly;
import dev.onceonly.dashboard.DashboardServlet;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code onceonly dashboard}: serves the {@link DashboardServlet} over one store on an embedded
 * Jetty, on 127.0.0.1 unless told otherwise, behind a random access token that the one URL it
 * prints carries (as Jupyter does), until Ctrl-C.
 */
@Command(
    name = "dashboard",
    description = {
      "Serves the operator's dashboard over the store until Ctrl-C, on 127.0.0.1 by default.",
      "Prints one URL that carries a new random access token: only a browser that opened it (and"
          + " so holds the token's cookie) sees the pages."
    })
final class DashboardCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin Target target;

  @Option(
      names = "--host",
      paramLabel = "HOST",
      defaultValue = "127.0.0.1",
      description =
          "the address to listen on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 for"
              + " every interface, the token still required); beyond loopback, TLS unless"
              + " --insecure-http")
  String host;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "the port to listen on, 0 for a free one (default: ${DEFAULT-VALUE})")
  int port;

  @Option(
      names = "--insecure-http",
      description =
          "serve plain HTTP beyond loopback (the token and its cookie travel in clear); without it"
              + " a --host other than loopback is served over TLS")
  boolean insecureHttp;

  @Option(
      names = "--keystore",
      paramLabel = "FILE",
      description =
          "serve TLS with the key and certificate of this PKCS#12 or JKS file (default beyond"
              + " loopback: a self-signed certificate made for the run, its SHA-256 printed)")
  java.nio.file.Path keystore;

  @Option(
      names = "--keystore-password",
      paramLabel = "PASSWORD",
      description = "the password of --keystore and of its key")
  String keystorePassword;

  @Option(
      names = "--trust-forwarded",
      description =
          "take X-Forwarded-Proto and Forwarded from the request (behind a TLS proxy of yours):"
              + " a request they say came over HTTPS gets Secure cookies")
  boolean trustForwarded;

  @Option(
      names = "--read-only",
      description = "show the pages without any action (every POST is refused)")
  boolean readOnly;

  @Override
  public Integer call() {
    if (port < 0 || port > 65_535) {
      throw new CliException(CliException.USAGE, "--port must be 0 to 65535: " + port);
    }
    DashboardHttp.checkPresent();
    PrintWriter err = spec.commandLine().getErr();
    DashboardTls tls = tls(err);
    String token = DashboardServlet.newAccessToken();
    // No page writes on GET (the Unknown outcomes page lists without sweeping), so a read-only
    // dashboard opens the store as the read commands do: a SQLite file read-only.
    OnceOnly once = readOnly ? target.open() : target.openToWrite();
    DashboardServlet servlet =
        DashboardServlet.builder(once).readOnly(readOnly).accessToken(token).build();
    try (DashboardHttp http = DashboardHttp.start(servlet, host, port, once, tls, trustForwarded)) {
      err.println(
          "onceonly: the dashboard of "
              + target.describe()
              + (readOnly ? " (read-only)" : "")
              + " until Ctrl-C; open:");
      err.flush();
      PrintWriter out = spec.commandLine().getOut();
      out.println(http.url() + "?token=" + token);
      out.flush();
      http.awaitStop();
    }
    return 0;
  }

  /**
   * Decides how the dashboard is served: over TLS with --keystore, or beyond loopback without
   * --insecure-http (a self-signed certificate then); says on stderr what a stranger on the network
   * may see.
   */
  private DashboardTls tls(PrintWriter err) {
    boolean loopback = DashboardTls.loopback(host);
    if (DashboardTls.wildcard(host)) {
      err.println(
          "onceonly: warning: listening on every interface ("
              + host
              + "): anyone who can reach this machine can try the dashboard's port");
    }
    if (keystore != null) {
      return DashboardTls.load(keystore, keystorePassword);
    }
    if (loopback) {
      return null;
    }
    if (insecureHttp) {
      err.println(
          "onceonly: warning: plain HTTP beyond loopback (--insecure-http): the access token and"
              + " its cookie travel in clear");
      return null;
    }
    DashboardTls made = DashboardTls.selfSigned(host);
    err.println(
        "onceonly: TLS with a self-signed certificate made for this run; check the browser's"
            + " warning against its SHA-256 fingerprint: "
            + made.fingerprint());
    return made;
  }
}
