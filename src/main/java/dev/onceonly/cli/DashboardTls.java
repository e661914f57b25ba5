package dev.onceonly.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The TLS of {@code onceonly dashboard} beyond loopback: the operator's key store, or a self-signed
 * certificate made for the run by the JDK's {@code keytool} (for the host given, {@code localhost}
 * and the loopback addresses), whose SHA-256 fingerprint the command prints so that the browser's
 * warning can be checked against it.
 *
 * @param keyStore the key store holding the server's key and certificate
 * @param password its password (and the key's)
 * @param fingerprint the SHA-256 of the certificate, as hexadecimal pairs separated by colons
 */
record DashboardTls(KeyStore keyStore, String password, String fingerprint) {
  /** Loads the operator's PKCS#12 or JKS key store. */
  static DashboardTls load(Path file, String password) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(in, password == null ? null : password.toCharArray());
      return of(ks, password);
    } catch (IOException | GeneralSecurityException e) {
      throw new CliException(
          CliException.USAGE,
          "cannot read the key store " + file + ": " + Target.firstLine(e.getMessage()));
    }
  }

  /** Makes a self-signed certificate for this run, valid for a day, in a temporary folder. */
  static DashboardTls selfSigned(String host) {
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    try {
      Path dir = Files.createTempDirectory("onceonly-dashboard-tls");
      Path file = dir.resolve("dashboard.p12");
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      ProcessBuilder pb =
          new ProcessBuilder(
                  keytool,
                  "-genkeypair",
                  "-alias",
                  "dashboard",
                  "-keyalg",
                  "EC",
                  "-groupname",
                  "secp256r1",
                  "-validity",
                  "1",
                  "-dname",
                  "CN=onceonly dashboard",
                  "-ext",
                  "SAN=" + names(host),
                  "-storetype",
                  "PKCS12",
                  "-keystore",
                  file.toString(),
                  "-storepass:env",
                  "OO_STOREPASS",
                  "-keypass:env",
                  "OO_STOREPASS")
              .redirectErrorStream(true);
      pb.environment().put("OO_STOREPASS", password); // not on a command line others can read
      Process p = pb.start();
      p.getOutputStream().close();
      String output =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new CliException(
            CliException.USAGE,
            "cannot make a self-signed certificate: " + Target.firstLine(output));
      }
      DashboardTls tls = load(file, password);
      Files.delete(file);
      Files.delete(dir);
      return tls;
    } catch (IOException e) {
      throw new CliException(
          CliException.USAGE, "cannot make a self-signed certificate: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(CliException.USAGE, "interrupted while making the certificate");
    }
  }

  private static String names(String host) {
    StringBuilder san = new StringBuilder("dns:localhost,ip:127.0.0.1,ip:::1");
    if (!wildcard(host) && !host.equals("localhost")) {
      san.append(host.matches("[0-9.]+|.*:.*") ? ",ip:" : ",dns:").append(host);
    }
    String usable = usableHost(host);
    if (!usable.equals(host) && !usable.equals("localhost")) {
      san.append(usable.matches("[0-9.]+|.*:.*") ? ",ip:" : ",dns:")
          .append(usable.replaceAll("[\\[\\]]", ""));
    }
    return san.toString();
  }

  private static DashboardTls of(KeyStore ks, String password) throws GeneralSecurityException {
    for (String alias : Collections.list(ks.aliases())) {
      if (ks.isKeyEntry(alias)) {
        Certificate cert = ks.getCertificate(alias);
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
        String hex = HexFormat.ofDelimiter(":").withUpperCase().formatHex(sha);
        return new DashboardTls(ks, password, hex);
      }
    }
    throw new KeyStoreHasNoKey();
  }

  /** {@return whether {@code host} names every interface: 0.0.0.0 or ::} */
  static boolean wildcard(String host) {
    try {
      return InetAddress.getByName(host).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** {@return whether {@code host} is this machine only} */
  static boolean loopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * {@return a host a browser on another machine can reach this one by, for the printed URL: the
   * host given, or for a wildcard the first address of an interface that is up and not loopback}
   */
  static String usableHost(String host) {
    if (!wildcard(host)) {
      return host;
    }
    try {
      for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!ni.isUp() || ni.isLoopback()) {
          continue;
        }
        List<InetAddress> addresses = Collections.list(ni.getInetAddresses());
        for (InetAddress a : addresses) {
          if (a instanceof java.net.Inet4Address) {
            return a.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // no interface to name: the machine's name below
    }
    try {
      return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }

  /** A key store without a private key. */
  private static final class KeyStoreHasNoKey extends GeneralSecurityException {
    private static final long serialVersionUID = 1L;

    KeyStoreHasNoKey() {
      super("it holds no private key");
    }
  }
}
