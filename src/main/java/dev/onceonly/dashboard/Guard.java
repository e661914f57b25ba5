package dev.onceonly.dashboard;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's two checks: the access token of the standalone mode, and the CSRF value every
 * action carries. The CSRF value is a signed double submit: the browser holds a random cookie, and
 * each form carries the HMAC of that cookie under a key only this servlet knows, so a page of
 * another site can neither read the cookie nor compute the form value. No server session is kept.
 */
final class Guard {
  static final String TOKEN_COOKIE = "oo_dashboard_token";
  static final String CSRF_COOKIE = "oo_dashboard_csrf";
  static final String CSRF_FIELD = "csrf";
  static final String TOKEN_PARAMETER = "token";

  private static final SecureRandom RANDOM = new SecureRandom();
  private final byte[] key = random(32);
  private final String accessToken;

  Guard(String accessToken) {
    this.accessToken = accessToken;
  }

  /** {@return a new random value, 32 bytes in URL-safe Base64} */
  static String newToken() {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(random(32));
  }

  /** {@return whether this dashboard asks for an access token} */
  boolean tokenRequired() {
    return accessToken != null;
  }

  /** {@return whether the request carries the access token, or none is required} */
  boolean admitted(HttpServletRequest req) {
    return accessToken == null || same(accessToken, cookie(req, TOKEN_COOKIE));
  }

  /** {@return whether the request's query carries the access token} */
  boolean tokenInQuery(HttpServletRequest req) {
    return accessToken != null && same(accessToken, req.getParameter(TOKEN_PARAMETER));
  }

  /** Keeps the access token in a cookie, so it need not stay in the address bar. */
  void rememberToken(HttpServletResponse res, String path) {
    res.addHeader("Set-Cookie", cookieHeader(TOKEN_COOKIE, accessToken, path));
  }

  /**
   * Returns the CSRF value for the forms of this response, setting the browser's cookie first when
   * it has none.
   */
  String csrfFor(HttpServletRequest req, HttpServletResponse res, String path) {
    String nonce = cookie(req, CSRF_COOKIE);
    if (nonce == null || nonce.length() != 43) {
      nonce = newToken();
      res.addHeader("Set-Cookie", cookieHeader(CSRF_COOKIE, nonce, path));
    }
    return sign(nonce);
  }

  /** {@return whether a POST carries the CSRF value that matches its cookie} */
  boolean csrfValid(HttpServletRequest req) {
    String nonce = cookie(req, CSRF_COOKIE);
    return nonce != null && same(sign(nonce), req.getParameter(CSRF_FIELD));
  }

  private String sign(String nonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] tag = mac.doFinal(nonce.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform provides HmacSHA256", e);
    }
  }

  private static String cookieHeader(String name, String value, String path) {
    return name + "=" + value + "; Path=" + path + "; HttpOnly; SameSite=Strict";
  }

  private static String cookie(HttpServletRequest req, String name) {
    Cookie[] cookies = req.getCookies();
    if (cookies != null) {
      for (Cookie c : cookies) {
        if (c.getName().equals(name)) {
          return c.getValue();
        }
      }
    }
    return null;
  }

  private static boolean same(String expected, String given) {
    return given != null
        && MessageDigest.isEqual(
            expected.getBytes(StandardCharsets.UTF_8), given.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }
}
