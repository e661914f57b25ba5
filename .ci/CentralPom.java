import java.io.File;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;

/**
 * Checks a POM for what Maven Central requires of it: its coordinates (as given), a name, a
 * description, a URL, a licence with a name and URL, a developer with a name, and an SCM URL and
 * connection; no version ending in -SNAPSHOT. Run as {@code java CentralPom.java POM GROUP ARTIFACT
 * VERSION}; prints what is missing and exits 1, or exits 0.
 */
public class CentralPom {
  public static void main(String[] args) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document pom = f.newDocumentBuilder().parse(new File(args[0]));
    XPath x = XPathFactory.newInstance().newXPath();
    List<String> missing = new ArrayList<>();
    String[][] expected = {
      {"groupId", args[1]}, {"artifactId", args[2]}, {"version", args[3]}
    };
    for (String[] e : expected) {
      String found = x.evaluate("/*[local-name()='project']/*[local-name()='" + e[0] + "']", pom);
      if (!found.strip().equals(e[1])) {
        missing.add(e[0] + " " + e[1] + " (found '" + found + "')");
      }
    }
    if (args[3].endsWith("-SNAPSHOT")) {
      missing.add("a release version (not -SNAPSHOT)");
    }
    String[] paths = {
      "name", "description", "url",
      "licenses/license/name", "licenses/license/url",
      "developers/developer/name",
      "scm/url", "scm/connection", "scm/developerConnection"
    };
    for (String p : paths) {
      StringBuilder xp = new StringBuilder("/*[local-name()='project']");
      for (String step : p.split("/")) {
        xp.append("/*[local-name()='").append(step).append("']");
      }
      if (x.evaluate(xp.toString(), pom).isBlank()) {
        missing.add(p);
      }
    }
    missing.forEach(m -> System.err.println("CentralPom: missing " + m + " in " + args[0]));
    System.exit(missing.isEmpty() ? 0 : 1);
  }
}
