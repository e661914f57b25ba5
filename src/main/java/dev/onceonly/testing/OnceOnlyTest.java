package dev.onceonly.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives every test of the annotated class a fresh OnceOnly store on a temporary SQLite file, with
 * the default {@link OnceOnlyExtension}: test methods take {@link dev.onceonly.OnceOnly}, {@link
 * MutableClock} and {@link Reopen} parameters.
 *
 * <pre>{@code
 * @OnceOnlyTest
 * class PaymentsTest {
 *   @Test
 *   void paysOnce(OnceOnly once, MutableClock clock, Reopen reopen) { ... }
 * }
 * }</pre>
 *
 * <p>For other settings (a start time, builder options, PostgreSQL) register the extension on a
 * field instead: {@code @RegisterExtension final OnceOnlyExtension store =
 * OnceOnlyExtension.sqlite()...}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(OnceOnlyExtension.class)
public @interface OnceOnlyTest {}
