import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { hashApiPassword, RANDOM_STR_PATTERN } from '../protocol/api-password.ts';
import type { SimClock } from './clock.ts';
import { envelope, ok } from './context.ts';
import type { Faults, SimulatorOptions } from './options.ts';
import { normaliseAddress, type Router, type SimRequest, type SimResponse } from './router.ts';
import * as z from './zod.ts';

/**
 * Codes of the authentication family (field notes), all HTTP 401. The gateway has no dedicated
 * "expired" code, so every token it did not accept (expired, revoked, forged, wrong kind) answers
 * `29011` (re-authenticate); `20004` is kept for a missing or malformed `Authorization` header.
 * A source address off the allowlist is `20001` on the token endpoints and `29025` on every other
 * call; `20001` also refuses a refresh from another address than the refresh token was issued to
 * (spec 01 §5 item 4 names the rule but no code; `20001` is the family's "IP not allowed").
 */
export const AUTH_CODES = {
  unknownApiKey: '20000',
  ipNotAllowed: '20001',
  passwordMismatch: '20002',
  tokenCreationError: '20003',
  headerError: '20004',
  reauthenticate: '29011',
  sourceIpNotAllowlisted: '29025',
} as const;

const TokenIssueBodySchema = z.object({
  apiKey: z.string().check(z.minLength(1), z.maxLength(20)),
  apiPwd: z.string().check(z.minLength(1)),
});

const ClaimsSchema = z.object({
  sub: z.string(),
  typ: z.enum(['access', 'refresh']),
  iat: z.int(),
  exp: z.int(),
  jti: z.string(),
});
type Claims = z.infer<typeof ClaimsSchema>;
type TokenType = Claims['typ'];

export interface SimAuth {
  register(router: Router): void;
  /**
   * An error answer when the call comes from an address off the allowlist (`29025`) or carries
   * no valid, unexpired access token.
   */
  requireBearer(request: SimRequest): SimResponse | undefined;
  /**
   * An error answer unless the call comes from an allowed address (`29025`) and its `apiKey`
   * header names the configured key (`20000`): the opt-out endpoints (spec 01 §4.15).
   */
  requireApiKeyHeader(request: SimRequest): SimResponse | undefined;
  /** Every token issued so far stops working; tokens issued afterwards work. */
  revokeAll(): void;
  snapshot(): { authentications: number; refreshes: number; tokensIssued: number };
}

const unauthorized = (code: string, message: string): SimResponse =>
  envelope(code, message, undefined, 401);

/**
 * Token issuance and checking. Tokens are real HS256 JWTs signed with a secret made per simulator
 * instance, so a token from another run (or a hand-made one) is refused; their `exp` follows the
 * simulated clock so expiry can be reached by advancing it.
 */
export const createAuth = (deps: {
  readonly options: SimulatorOptions;
  readonly clock: SimClock;
  /** The fault settings in force now (they change at run time). */
  readonly faults: () => Faults;
  /** The simulator's seeded PRNG, so `tokenErrorRate` draws are reproducible. */
  readonly random: () => number;
}): SimAuth => {
  const { options, clock } = deps;
  const secret = randomBytes(32);
  // jti of every token still honoured -> the address it was issued to (the refresh token's
  // same-address rule reads it); revocation empties it.
  const live = new Map<string, string>();
  const counts = { authentications: 0, refreshes: 0, tokensIssued: 0 };
  const allowed =
    options.allowedIps === undefined
      ? undefined
      : new Set(options.allowedIps.map(normaliseAddress));
  const isAllowed = (request: SimRequest): boolean =>
    allowed === undefined || allowed.has(request.remoteAddress);

  /** `29025` for a call other than token issuance from an address off the allowlist. */
  const requireAllowedSource = (request: SimRequest): SimResponse | undefined =>
    isAllowed(request)
      ? undefined
      : unauthorized(
          AUTH_CODES.sourceIpNotAllowlisted,
          `source IP ${request.remoteAddress || '(unknown)'} is not on the allowlist`,
        );

  /**
   * The `tokenErrorRate` fault, drawn once every check of a token call passed. A rate of 0 draws
   * nothing, so turning it off does not shift the outcome mix of reports.
   */
  const tokenCreationFault = (): SimResponse | undefined => {
    const { tokenErrorRate } = deps.faults();
    if (tokenErrorRate > 0 && deps.random() < tokenErrorRate) {
      return unauthorized(AUTH_CODES.tokenCreationError, 'token creation error (simulated)');
    }
    return undefined;
  };

  const ipNotAllowed = (request: SimRequest): SimResponse =>
    unauthorized(
      AUTH_CODES.ipNotAllowed,
      `IP ${request.remoteAddress || '(unknown)'} is not allowed to obtain tokens`,
    );

  const sign = (typ: TokenType, ttlSeconds: number, issuedTo: string): string => {
    const iat = Math.floor(clock.now() / 1000);
    const claims: Claims = {
      sub: options.apiKey,
      typ,
      iat,
      exp: iat + ttlSeconds,
      jti: randomUUID(),
    };
    live.set(claims.jti, issuedTo);
    const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
    return `${unsigned}.${hmac(secret, unsigned)}`;
  };

  /** The token's claims, or the 401 answer explaining why it is not accepted. */
  const verify = (
    request: SimRequest,
    expected: TokenType,
  ): (Claims & { issuedTo: string }) | SimResponse => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/.exec(header) : null;
    if (!match?.[1]) {
      return unauthorized(AUTH_CODES.headerError, 'Authorization header must be "Bearer <token>"');
    }
    const claims = decode(secret, match[1]);
    if (!claims || claims.typ !== expected || claims.sub !== options.apiKey) {
      return unauthorized(AUTH_CODES.reauthenticate, `not a valid ${expected} token`);
    }
    if (clock.now() >= claims.exp * 1000) {
      return unauthorized(AUTH_CODES.reauthenticate, `${expected} token expired`);
    }
    const issuedTo = live.get(claims.jti);
    if (issuedTo === undefined) {
      return unauthorized(AUTH_CODES.reauthenticate, `${expected} token revoked`);
    }
    return { ...claims, issuedTo };
  };

  const issue = (request: SimRequest): SimResponse => {
    const randomStr = request.params.randomStr ?? '';
    if (!RANDOM_STR_PATTERN.test(randomStr)) {
      return envelope('21001', 'randomStr: 1 to 20 letters, digits, "-" or "_"', undefined, 400);
    }
    const body = TokenIssueBodySchema.safeParse(request.json());
    if (!body.success) {
      return envelope('21001', `invalid body: ${z.prettifyError(body.error)}`, undefined, 400);
    }
    // The allowlist comes before the credentials: a caller outside it learns nothing about them.
    if (!isAllowed(request)) return ipNotAllowed(request);
    if (body.data.apiKey !== options.apiKey) {
      return unauthorized(AUTH_CODES.unknownApiKey, 'unknown API key');
    }
    if (!sameText(body.data.apiPwd, hashApiPassword(options.apiPassword, randomStr))) {
      return unauthorized(AUTH_CODES.passwordMismatch, 'password hash mismatch');
    }
    const refused = tokenCreationFault();
    if (refused) return refused;
    counts.authentications += 1;
    counts.tokensIssued += 1;
    return ok({
      token: sign('access', options.accessTokenTtlSeconds, request.remoteAddress),
      refreshToken: sign('refresh', options.refreshTokenTtlSeconds, request.remoteAddress),
    });
  };

  // The refresh token is not renewed (field notes): clients must re-authenticate before it ends.
  const refresh = (request: SimRequest): SimResponse => {
    if (!isAllowed(request)) return ipNotAllowed(request);
    const claims = verify(request, 'refresh');
    if (!('jti' in claims)) return claims;
    // Spec 01 §5 item 4: the refresh token's recorded address must be the caller's.
    if (claims.issuedTo !== request.remoteAddress) {
      return unauthorized(
        AUTH_CODES.ipNotAllowed,
        `refresh token was issued to another IP (${claims.issuedTo || '(unknown)'}) than this request's (${request.remoteAddress || '(unknown)'}); authenticate again`,
      );
    }
    const refused = tokenCreationFault();
    if (refused) return refused;
    counts.refreshes += 1;
    counts.tokensIssued += 1;
    return ok({ token: sign('access', options.accessTokenTtlSeconds, request.remoteAddress) });
  };

  return {
    register(router) {
      // Registered before the `:randomStr` route so PUT /auth/v1/refresh is not a 405.
      router.add('PUT', '/auth/v1/refresh', refresh);
      router.add('POST', '/auth/v1/:randomStr', issue);
    },
    requireBearer(request) {
      const outside = requireAllowedSource(request);
      if (outside) return outside;
      const claims = verify(request, 'access');
      return 'jti' in claims ? undefined : claims;
    },
    requireApiKeyHeader(request) {
      return (
        requireAllowedSource(request) ??
        (request.headers.apikey === options.apiKey
          ? undefined
          : unauthorized(AUTH_CODES.unknownApiKey, 'unknown API key (header apiKey)'))
      );
    },
    revokeAll() {
      live.clear();
    },
    snapshot: () => ({ ...counts }),
  };
};

const base64url = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

const hmac = (secret: Buffer, text: string): string =>
  createHmac('sha256', secret).update(text).digest('base64url');

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The claims of a JWT signed with `secret`, or `undefined` for anything else. */
const decode = (secret: Buffer, token: string): Claims | undefined => {
  const parts = token.split('.');
  const [header, payload, signature] = parts;
  if (
    parts.length !== 3 ||
    header === undefined ||
    payload === undefined ||
    signature === undefined
  )
    return undefined;
  if (!sameText(signature, hmac(secret, `${header}.${payload}`))) return undefined;
  try {
    const claims = ClaimsSchema.safeParse(
      JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
    );
    return claims.success ? claims.data : undefined;
  } catch {
    return undefined;
  }
};
