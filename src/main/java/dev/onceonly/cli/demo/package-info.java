/**
 * The demo of the command-line tool: the report workshop and the ticket desk, run on a store and
 * checked by counting its rows. Not exported; the tests share it.
 */
package dev.onceonly.cli.demo;
