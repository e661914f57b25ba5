package dev.onceonly.cli;

import dev.onceonly.IntentKey;
import picocli.CommandLine.Parameters;

/** The SCOPE and KEY parameters that name one intent. */
final class KeyArgs {
  @Parameters(index = "0", paramLabel = "SCOPE", description = "the intent's scope")
  String scope;

  @Parameters(index = "1", paramLabel = "KEY", description = "the intent's key")
  String key;

  IntentKey key() {
    return IntentKey.of(scope, key);
  }
}
