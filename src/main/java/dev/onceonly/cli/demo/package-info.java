/**
 * The demo of the command-line tool: seed 000's report workshop and seed 003's ticket case, run on
 * a store and checked by counting its rows. Not exported; the tests share it.
 */
package dev.onceonly.cli.demo;
