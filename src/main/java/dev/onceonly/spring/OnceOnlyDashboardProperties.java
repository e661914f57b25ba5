package dev.onceonly.spring;

import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code onceonly.dashboard.*} properties: the operator's dashboard ({@link
 * dev.onceonly.dashboard.DashboardServlet}) that the auto-configuration registers when {@code
 * enabled} is true. A bad value fails the start with a message naming the property.
 *
 * @param enabled whether the dashboard is served at all; off by default
 * @param path where it is served, for example {@code /onceonly} (its pages are below it)
 * @param readOnly whether every action is refused and no form is shown
 * @param authority the authority a user needs to act (requeue, delete, resolve, pause...): under
 *     Spring Security one of the current {@code Authentication}'s authorities, exactly; without it,
 *     a role of the servlet container ({@code isUserInRole}). The others see the pages only.
 */
// Spring's types are the application's, which requires Spring itself: nothing to re-export.
@SuppressWarnings("exports")
@ConfigurationProperties("onceonly.dashboard")
public record OnceOnlyDashboardProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue("/onceonly") String path,
    @DefaultValue("false") boolean readOnly,
    @DefaultValue("ONCEONLY_OPERATOR") String authority) {

  private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

  /**
   * Checks the path and the authority.
   *
   * @param enabled whether the dashboard is served
   * @param path where it is served: segments of letters, digits and {@code . _ ~ -}, each after a
   *     {@code /}, no {@code /} at the end
   * @param readOnly whether every action is refused
   * @param authority the authority a user needs to act, not blank
   * @throws IllegalArgumentException if the path or the authority is not valid
   */
  public OnceOnlyDashboardProperties {
    if (path == null || !PATH.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "onceonly.dashboard.path must be a path below the root such as /onceonly (segments of"
              + " letters, digits and . _ ~ -, no / at the end): "
              + path);
    }
    if (authority == null || authority.isBlank()) {
      throw new IllegalArgumentException("onceonly.dashboard.authority must not be blank");
    }
  }
}
