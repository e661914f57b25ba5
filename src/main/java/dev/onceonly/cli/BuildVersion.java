package dev.onceonly.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The tool's {@code --version}: the project version the build wrote into {@code build.properties}
 * (a resource Maven filters), so it cannot fall behind the jar.
 */
final class BuildVersion implements IVersionProvider {
  /** Returns the version of this build, such as {@code 0.1.0}. */
  static String version() {
    Properties p = new Properties();
    try (InputStream in = BuildVersion.class.getResourceAsStream("build.properties")) {
      if (in == null) {
        return "unknown";
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read build.properties", e);
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {"onceonly " + version()};
  }
}
