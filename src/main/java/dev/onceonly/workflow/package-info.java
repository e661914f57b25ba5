/**
 * Workflows: a named graph of steps defined in code, each step a message of a queue whose {@link
 * dev.onceonly.queue.Worker} runs it, run once per step through crashes, retries, redeliveries and
 * racing instances, with only the application's database.
 *
 * <p>{@link dev.onceonly.workflow.Workflow} defines one, {@link dev.onceonly.workflow.Workflows}
 * starts, finds, signals and cancels runs, and {@link dev.onceonly.workflow.Workflows#handler}
 * turns a {@link dev.onceonly.workflow.StepHandler} into the queue handler a worker runs. See
 * {@code docs/workflows.md}.
 */
package dev.onceonly.workflow;
