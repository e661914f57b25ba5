/**
 * The workflows on SQL: the run and step rows, and the transitions a step's completion, a dead
 * letter, a signal or a cancel makes, each inside the transaction that causes it. Not exported.
 */
package dev.onceonly.internal.workflow;
