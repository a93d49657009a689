/*
 * The errors the CLI turns into output and exit codes (see `framework.ts`). Their own module
 * because the code a command calls (target resolution, republish sources) throws them too, and
 * importing them from the framework, which imports the target's types, would tie the two in a
 * cycle.
 */

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure the user can act on, printed as `msgbridge CMD: message` (exit 1, no stack trace). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    /** Extra lines printed under the message (e.g. every validation problem). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }
}
