package dev.onceonly.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code 30d}, {@code 12h}, {@code 90m}, {@code 45s} or an ISO-8601 duration. */
final class AgeConverter implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([dhms])");

  /** The library's bound on every duration: 100 years. */
  private static final Duration MAX_AGE = Duration.ofDays(36_525);

  @Override
  public Duration convert(String value) {
    Matcher m = SHORT.matcher(value.strip().toLowerCase(Locale.ROOT));
    Duration d;
    if (m.matches()) {
      try {
        long n = Long.parseLong(m.group(1));
        d =
            switch (m.group(2)) {
              case "d" -> Duration.ofDays(n);
              case "h" -> Duration.ofHours(n);
              case "m" -> Duration.ofMinutes(n);
              default -> Duration.ofSeconds(n);
            };
      } catch (NumberFormatException | ArithmeticException e) {
        throw new TypeConversionException(tooOld(value));
      }
    } else {
      try {
        d = Duration.parse(value);
      } catch (DateTimeParseException e) {
        throw new TypeConversionException("not an age such as 30d, 12h, 90m or P30D: " + value);
      }
    }
    if (d.isNegative() || d.isZero()) {
      throw new TypeConversionException("the age must be > 0: " + value);
    }
    if (d.compareTo(MAX_AGE) > 0) {
      throw new TypeConversionException(tooOld(value));
    }
    return d;
  }

  private static String tooOld(String value) {
    return "the age must be at most 36525d (100 years): " + value;
  }
}
