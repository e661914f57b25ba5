package dev.onceonly.testing;

/**
 * A fault a {@link FaultRun} gives its child JVMs, one per child, chosen with {@link
 * FaultRun#faults(Fault...)}. A kill ends the child; the others break a connection and let the
 * child go on, calling the target again for the key whose call failed, as the application retries a
 * request, up to three times.
 *
 * <p>On a SQLite file there is no connection to break: only {@link #KILL} applies there. On a
 * server ({@link FaultRun#database}) each child puts the store's connections and the application's
 * through a TCP relay of its own on a loopback port, which breaks them.
 */
public enum Fault {
  /**
   * SIGKILL at a point before or after a statement or commit, or at a {@link FaultPoints#reached}:
   * the process ends, nothing more is sent, and an open transaction is rolled back by the database.
   * Its points are named as they are ({@code store: after COMMIT of INSERT INTO
   * onceonly_receipts}).
   */
  KILL(""),

  /**
   * The answer to a commit is lost: the request reaches the server, which commits, and its answer
   * is dropped and the connection reset, so the client does not know whether it committed. A commit
   * is an explicit {@code commit()} or a write statement in auto-commit. Its points are named
   * {@code lost commit answer: application: before COMMIT of INSERT INTO charges}.
   */
  LOST_COMMIT_ANSWER("lost commit answer"),

  /**
   * Every connection of the child is reset in the middle of a transaction, before one of its
   * statements or its commit is sent: the server rolls the transaction back, the statement fails.
   * Its points are named {@code connection reset: store: before INSERT INTO onceonly_receipts}.
   */
  CONNECTION_RESET("connection reset");

  private final String label;

  Fault(String label) {
    this.label = label;
  }

  /**
   * {@return how the names of this fault's points begin, such as {@code "lost commit answer: "}}
   */
  String prefix() {
    return label.isEmpty() ? "" : label + ": ";
  }

  /** {@return the fault whose points a point name is of} */
  static Fault of(String point) {
    for (Fault f : values()) {
      if (f != KILL && point.startsWith(f.prefix())) {
        return f;
      }
    }
    return KILL;
  }
}
