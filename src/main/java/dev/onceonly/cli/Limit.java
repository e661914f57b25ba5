package dev.onceonly.cli;

import picocli.CommandLine.Option;

/** The {@code --limit} of a listing: 1 to 10,000 rows, 100 by default. */
final class Limit {
  @Option(
      names = "--limit",
      defaultValue = "100",
      description = "at most this many, 1 to 10,000 (default: ${DEFAULT-VALUE})")
  int limit;

  int value() {
    if (limit < 1 || limit > 10_000) {
      throw new CliException(CliException.USAGE, "--limit must be between 1 and 10,000");
    }
    return limit;
  }
}
