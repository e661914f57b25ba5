package dev.onceonly.dashboard;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The dashboard's two checks: the access token of the standalone mode, and the CSRF value every
 * action carries. The CSRF value is bound to the request's session: the HMAC, under a key made anew
 * for each servlet instance, of what names that session. A value and cookie taken from one session
 * (another browser, another user, or cookies planted from another port of the same host) are
 * refused in any other session. The session is, in this order:
 *
 * <ul>
 *   <li>with an access token, the browser's own dashboard session: exchanging the token in the
 *       address bar sets a cookie holding a new random session id signed with that key, and only a
 *       cookie of a valid signature is admitted, so no two browsers share a session;
 *   <li>else the container's session ({@code HttpSession}, as a login under Spring Security makes;
 *       never created here), with the request's principal;
 *   <li>else the principal alone (for example HTTP Basic without a session);
 *   <li>else, for anonymous requests that have no session to bind to, a random cookie (the signed
 *       double submit): a page of another site can neither read it nor compute the value.
 * </ul>
 *
 * <p>Every cookie carries {@code Secure} when the request came over HTTPS ({@link
 * HttpServletRequest#isSecure()}, which the container sets from a trusted proxy's forwarded headers
 * when told to).
 */
final class Guard {
  static final String TOKEN_COOKIE = "oo_dashboard_session";
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

  /** {@return whether the request carries a dashboard session's cookie, or none is required} */
  boolean admitted(HttpServletRequest req) {
    return accessToken == null || tokenSession(req) != null;
  }

  /** {@return whether the request's query carries the access token} */
  boolean tokenInQuery(HttpServletRequest req) {
    return accessToken != null && same(accessToken, req.getParameter(TOKEN_PARAMETER));
  }

  /**
   * Starts a dashboard session for the browser that showed the access token: a cookie of a new
   * random id and its signature, so the token need not stay in the address bar.
   */
  void startSession(HttpServletRequest req, HttpServletResponse res, String path) {
    String id = newToken();
    res.addHeader("Set-Cookie", cookieHeader(req, TOKEN_COOKIE, id + "." + sign("s|" + id), path));
  }

  /**
   * Returns the CSRF value for the forms of this response, setting the browser's cookie first when
   * the request has no session to bind to and no such cookie.
   */
  String csrfFor(HttpServletRequest req, HttpServletResponse res, String path) {
    String session = session(req);
    if (session == null) {
      String nonce = newToken();
      res.addHeader("Set-Cookie", cookieHeader(req, CSRF_COOKIE, nonce, path));
      session = "n|" + nonce;
    }
    return sign("c|" + session);
  }

  /** {@return whether a POST carries the CSRF value of its own session} */
  boolean csrfValid(HttpServletRequest req) {
    String session = session(req);
    return session != null && same(sign("c|" + session), req.getParameter(CSRF_FIELD));
  }

  /** {@return what names the request's session, or null when it has none and no CSRF cookie} */
  private String session(HttpServletRequest req) {
    if (accessToken != null) {
      String id = tokenSession(req);
      return id == null ? null : "t|" + id;
    }
    HttpSession container = req.getSession(false);
    String principal = req.getUserPrincipal() == null ? null : req.getUserPrincipal().getName();
    if (container != null) {
      return "h|" + container.getId() + "|" + principal;
    }
    if (principal != null) {
      return "p|" + principal;
    }
    String nonce = cookie(req, CSRF_COOKIE);
    return nonce == null || nonce.length() != 43 ? null : "n|" + nonce;
  }

  /** {@return the id of the request's dashboard session if its cookie is signed by this key} */
  private String tokenSession(HttpServletRequest req) {
    String value = cookie(req, TOKEN_COOKIE);
    int dot = value == null ? -1 : value.indexOf('.');
    if (dot != 43) {
      return null;
    }
    String id = value.substring(0, dot);
    return same(sign("s|" + id), value.substring(dot + 1)) ? id : null;
  }

  private String sign(String value) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] tag = mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform provides HmacSHA256", e);
    }
  }

  private static String cookieHeader(
      HttpServletRequest req, String name, String value, String path) {
    return name
        + "="
        + value
        + "; Path="
        + path
        + "; HttpOnly; SameSite=Strict"
        + (req.isSecure() ? "; Secure" : "");
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
