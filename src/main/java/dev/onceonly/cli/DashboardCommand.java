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
              + " every interface, the token still required)")
  String host;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "the port to listen on, 0 for a free one (default: ${DEFAULT-VALUE})")
  int port;

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
    String token = DashboardServlet.newAccessToken();
    // No page writes on GET (the Unknown outcomes page lists without sweeping), so a read-only
    // dashboard opens the store as the read commands do: a SQLite file read-only.
    OnceOnly once = readOnly ? target.open() : target.openToWrite();
    DashboardServlet servlet =
        DashboardServlet.builder(once).readOnly(readOnly).accessToken(token).build();
    try (DashboardHttp http = DashboardHttp.start(servlet, host, port, once)) {
      PrintWriter err = spec.commandLine().getErr();
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
}
