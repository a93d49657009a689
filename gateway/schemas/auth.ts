import { RANDOM_STR_PATTERN } from '../../protocol/api-password.ts';
import * as z from './zod.ts';

/** The `{randomStr}` path segment of token issuance (spec 01 §4.1); hashed into `apiPwd`. */
export const RandomStrSchema = z
  .string()
  .check(z.regex(RANDOM_STR_PATTERN, 'randomStr must be 1-20 of letters, digits, "-" or "_"'));

/** Body of `POST {api_url}/auth/v1/{randomStr}` (spec 01 §4.1). */
export const TokenIssueRequestSchema = z.strictObject({
  apiKey: z.string().check(z.minLength(1), z.maxLength(20)),
  /** `Base64(SHA-512(Base64(SHA-512(password)) + "." + randomStr))`, see `hashApiPassword`. */
  apiPwd: z.string().check(z.minLength(1)),
});
export type TokenIssueRequest = z.infer<typeof TokenIssueRequestSchema>;

/** `data` of token issuance: an access token (1 h) and a refresh token (25 h). */
export const TokenIssueDataSchema = z.looseObject({
  token: z.string().check(z.minLength(1)),
  refreshToken: z.string().check(z.minLength(1)),
});
export type TokenIssueData = z.infer<typeof TokenIssueDataSchema>;

/**
 * `data` of `PUT {api_url}/auth/v1/refresh` (spec 01 §4.2): a new access token only; the refresh
 * token is not renewed (field notes, "Authentication").
 */
export const TokenRefreshDataSchema = z.looseObject({
  token: z.string().check(z.minLength(1)),
});
export type TokenRefreshData = z.infer<typeof TokenRefreshDataSchema>;
