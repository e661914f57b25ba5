/**
 * The {@code onceonly} command-line tool ({@link dev.onceonly.cli.Main}): the demo and the operator
 * commands. Needs picocli, an optional dependency of the library; runnable as {@code java -jar
 * target/onceonly-cli.jar}. Not exported.
 */
package dev.onceonly.cli;
