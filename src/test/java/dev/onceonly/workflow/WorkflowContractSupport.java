package dev.onceonly.workflow;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.onceonly.contract.QueueContractSupport;
import dev.onceonly.queue.Delivery;
import dev.onceonly.queue.Handler;
import dev.onceonly.queue.JobQueue;
import dev.onceonly.queue.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * What the workflow suites share: the {@code effects} table of {@link QueueContractSupport},
 * written once per step (key {@code <run>:<step>}) and once per compensation ({@code
 * <run>:<step>:undo}), and a drain that hands every due message of some queues to a handler on the
 * calling thread until none is left.
 */
public abstract class WorkflowContractSupport extends QueueContractSupport {
  static final Duration LEASE = Duration.ofSeconds(30);

  /**
   * A step that writes its effect row and returns its name with the results it read: {@code
   * {"step": "charge", "read": {"reserve": {...}}}}; a compensation writes its {@code :undo} row.
   */
  static final StepHandler EFFECT =
      (step, tx) -> {
        String key = step.workflowId() + ":" + step.step() + (step.compensation() ? ":undo" : "");
        insert(tx, key, step.compensation() ? "undo-" + undone(tx) : "do");
        ObjectNode out = JsonNodeFactory.instance.objectNode().put("step", step.step());
        ObjectNode read = out.putObject("read");
        for (String dep : List.of("a", "b", "c", "d", "e", "reserve", "charge", "ship")) {
          if (!step.result(dep).isNull()) {
            read.set(dep, step.result(dep));
          }
        }
        return out;
      };

  static void insert(Connection tx, String key, String holder) throws SQLException {
    try (PreparedStatement ps =
        tx.prepareStatement("INSERT INTO effects (message_key, holder) VALUES (?, ?)")) {
      ps.setString(1, key);
      ps.setString(2, holder);
      ps.executeUpdate();
    }
  }

  /** How many compensations wrote their row before, read in the compensation's transaction. */
  static long undone(Connection tx) throws SQLException {
    try (PreparedStatement ps =
            tx.prepareStatement("SELECT COUNT(*) FROM effects WHERE holder LIKE 'undo-%'");
        java.sql.ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Returns the one delivery of a receive. */
  static Delivery only(List<Delivery> deliveries) {
    org.assertj.core.api.Assertions.assertThat(deliveries).hasSize(1);
    return deliveries.get(0);
  }

  /** Handles every due message of {@code queues} with {@code handler}, until none is left. */
  int drain(JobQueue queue, Handler handler, String... queues) {
    int handled = 0;
    boolean progress = true;
    while (progress) {
      progress = false;
      for (String q : queues) {
        for (Delivery d : queue.receive(q, 10, LEASE)) {
          Worker.handleOnce(queue, d, handler);
          handled++;
          progress = true;
        }
      }
    }
    return handled;
  }

  int drain(StepHandler steps, String... queues) {
    return drain(once.queue(), once.workflows().handler(steps), queues);
  }

  /** Counts the effect rows of a key. */
  long effects(String key) {
    return db.count("SELECT COUNT(*) FROM effects WHERE message_key = ?", key);
  }

  /** The keys of the compensations' effect rows, in the order they were written. */
  List<String> undoOrder() {
    return db.strings("SELECT message_key FROM effects WHERE holder LIKE 'undo-%' ORDER BY holder");
  }
}
