package dev.onceonly.spring.app;

import dev.onceonly.queue.Handler;
import dev.onceonly.queue.Job;
import dev.onceonly.spring.OnceOnlyHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Prints a label, acknowledges in its transaction, then jams: Spring rolls back the label and the
 * acknowledgement together.
 */
@Component
@OnceOnlyHandler(queue = "labels", lease = "1h")
public class LabelHandler implements Handler {
  private final JdbcTemplate jdbc;

  /**
   * Creates the handler.
   *
   * @param jdbc the application's own JDBC access
   */
  public LabelHandler(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  @Transactional(rollbackFor = Exception.class)
  public void handle(Job job) throws Exception {
    jdbc.update(
        "INSERT INTO shipments (message_key, item) VALUES (?, ?)", job.delivery().key(), "label");
    job.completeWith(tx -> null);
    throw new IllegalStateException("label printer jammed");
  }
}
