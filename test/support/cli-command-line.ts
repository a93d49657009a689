import type { ScriptedAnswer } from './cli-gateway.ts';

/*
 * Small helpers for the CLI unit tests: a command line written as one would type it, and the
 * answer of a gateway that refuses.
 */

/**
 * The arguments of `line`, split on white space, as a shell without quoting would: write a value
 * holding a space as a separate array element.
 */
export const words = (line: string): string[] => line.trim().split(/\s+/);

/** The gateway's HTTP 400 refusal with `code` and `message` (and `data`, if given). */
export const refusal = (code: string, message: string, data?: unknown): ScriptedAnswer => ({
  status: 400,
  code,
  message,
  ...(data === undefined ? {} : { data }),
});
