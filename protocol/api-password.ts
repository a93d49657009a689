import { createHash, randomBytes } from 'node:crypto';

const sha512Base64 = (input: string): string =>
  createHash('sha512').update(input, 'utf8').digest('base64');

/**
 * The gateway's password proof for token issuance:
 * `Base64(SHA-512(Base64(SHA-512(password)) + "." + randomStr))`, both digests taken over UTF-8
 * bytes and Base64-encoded raw (standard alphabet, padded), never as hex.
 */
export const hashApiPassword = (password: string, randomStr: string): string =>
  sha512Base64(`${sha512Base64(password)}.${randomStr}`);

/** Allowed shape of the `randomStr` path segment. */
export const RANDOM_STR_PATTERN = /^[A-Za-z0-9_-]{1,20}$/;

/**
 * A fresh 20-character `randomStr` for one authentication. base64url's alphabet is exactly the
 * gateway's: letters, digits, `-` and `_`.
 */
export const newRandomStr = (): string => randomBytes(15).toString('base64url');
