/**
 * Where the receivers' claim checks live in the payload bucket. The CDK grant
 * (`lib/payload-bucket-access.ts`) allows writes below this prefix only, so the key the receivers
 * build and the prefix the stack grants come from here.
 */

/** Where bodies are kept in the payload bucket: `payloads/<report|mo>/<SHA-256 of the body>`. */
export const PAYLOAD_KEY_PREFIX = 'payloads/';

/** A body had to go to the payload bucket, but the receiver was built without one. */
export class PayloadStoreMissingError extends Error {
  override readonly name = 'PayloadStoreMissingError';
}
