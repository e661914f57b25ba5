package dev.onceonly.testing;

/** {@link DrainLeaseContract} on a SQLite file per test. */
class DrainLeaseSqliteTest extends DrainLeaseContract {
  @Override
  OnceOnlyExtension extension() {
    return OnceOnlyExtension.sqlite();
  }
}
