/**
 * What a handler or an SDK call threw, as an `Error` to keep and a message to show: JavaScript
 * lets anything be thrown, and the local run's stand-ins for AWS report whatever it was.
 */

/** `value` if it is an Error, else an Error that says what was thrown. */
export const toError = (value: unknown): Error =>
  value instanceof Error ? value : new Error(`Non-error thrown: ${messageOf(value)}`);

/** An Error's message, a string as it is, anything else as JSON. */
export const messageOf = (value: unknown): string =>
  value instanceof Error
    ? value.message
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** An error for the log, its name and message without the stack's noise. */
export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
