package dev.onceonly.cli;

import java.util.Arrays;
import java.util.TimeZone;

/**
 * Runs the tool in a child JVM whose default time zone is the first argument (and so the session
 * time zone the PostgreSQL driver asks for), with the remaining arguments.
 */
public final class CliInZone {
  private CliInZone() {}

  /**
   * Sets the zone, runs the tool and exits with its status.
   *
   * @param args the zone id, then the tool's command line
   */
  public static void main(String[] args) {
    TimeZone.setDefault(TimeZone.getTimeZone(args[0]));
    System.exit(Main.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
  }
}
