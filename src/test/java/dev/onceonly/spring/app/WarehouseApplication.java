package dev.onceonly.spring.app;

import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/** The shop's warehouse: worker beans on the {@code shipping} and {@code labels} queues. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ShippingHandler.class, LabelHandler.class})
public class WarehouseApplication {
  /** The warehouse's own table. */
  public static final String SCHEMA =
      "CREATE TABLE shipments (message_key VARCHAR(100) NOT NULL, item VARCHAR(100) NOT NULL)";

  /** Makes the next handler of {@code "slow"} wait until {@link #releaseSlow()}. */
  public static CountDownLatch holdSlow() {
    Gate.entered = new CountDownLatch(1);
    Gate.release = new CountDownLatch(1);
    return Gate.entered;
  }

  /** Lets held handlers go on. */
  public static void releaseSlow() {
    Gate.release.countDown();
  }
}
