import { schemaParser } from './envelope.ts';
import type * as z from './schemas/zod.ts';

/** Thrown before any call when a request does not satisfy its schema. */
export class GatewayRequestInvalidError extends Error {
  override readonly name = 'GatewayRequestInvalidError';
  constructor(
    readonly endpoint: string,
    readonly issues: readonly z.core.$ZodIssue[],
    options?: { cause?: unknown },
  ) {
    super(
      `${endpoint}: invalid request\n${issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}`,
      options,
    );
  }
}

/** Parses a request with its schema; a failure is a {@link GatewayRequestInvalidError} naming every issue. */
export const validateRequest = schemaParser(
  (error, target) =>
    new GatewayRequestInvalidError(`${target.method} ${target.path}`, error.issues, {
      cause: error,
    }),
);
