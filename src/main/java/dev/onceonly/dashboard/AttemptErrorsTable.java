package dev.onceonly.dashboard;

import dev.onceonly.queue.AttemptError;
import java.util.List;

/**
 * The failed attempts of one message ({@link dev.onceonly.queue.JobQueue#attemptErrors}) as a
 * table, oldest first, on the message page and the dead letter page. Every value is user data (an
 * exception's message may hold anything) and goes through {@link Html#text}.
 */
final class AttemptErrorsTable {
  private AttemptErrorsTable() {}

  /** Appends the heading and the table, or a line saying that none is kept. */
  static void append(Html h, List<AttemptError> errors) {
    h.raw("<h2>Failed attempts</h2>");
    if (errors.isEmpty()) {
      h.raw("<p id=\"attempt-errors\">No failed attempt of this message is kept.</p>");
      return;
    }
    h.raw("<p>The newest kept, oldest first.</p><table id=\"attempt-errors\"><tr><th>attempt</th>");
    h.raw("<th>lease number</th><th>failed at</th><th>error class</th><th>message</th>");
    h.raw("<th>trace</th></tr>");
    for (AttemptError e : errors) {
      h.raw("<tr>").td(e.attempt()).td(e.leaseNumber()).td(e.at());
      h.td(e.errorClass().orElse("-")).raw("<td>");
      lines(h, e.message());
      h.raw("</td><td>");
      if (e.trace().isPresent()) {
        lines(h, e.trace().get());
      } else {
        h.text("-");
      }
      h.raw("</td></tr>");
    }
    h.raw("</table>");
  }

  /**
   * Appends a text of several lines as preformatted text: each line escaped, the line breaks and a
   * trace line's leading tab written as layout (escaped, they would show as code points).
   */
  private static void lines(Html h, String text) {
    h.raw("<pre>");
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith("\t")) {
        h.raw("    ");
        line = line.substring(1);
      }
      h.text(line).raw(i + 1 < lines.length ? "\n" : "");
    }
    h.raw("</pre>");
  }
}
