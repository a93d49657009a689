/**
 * Errors a caller of the gateway can act on. Each carries the gateway's code and message (when
 * the gateway answered), the HTTP status and the endpoint, and says whether a retry is safe.
 */
export interface GatewayErrorContext {
  readonly code: string;
  readonly message: string;
  readonly endpoint: string;
  readonly httpStatus?: number;
  readonly cause?: unknown;
}

export abstract class GatewayError extends Error {
  abstract readonly retryable: boolean;
  readonly code: string;
  readonly gatewayMessage: string;
  readonly endpoint: string;
  readonly httpStatus: number | undefined;

  constructor(context: GatewayErrorContext) {
    super(`${context.endpoint}: ${context.code} ${context.message}`, { cause: context.cause });
    this.code = context.code;
    this.gatewayMessage = context.message;
    this.endpoint = context.endpoint;
    this.httpStatus = context.httpStatus;
  }
}

/**
 * What each authentication-family code means (field notes). The gateway's own message may be terse
 * or in Korean; an operator reading a failed run's error should see at once which of these it was,
 * above all the source-address refusals, which no retry or fresh token can fix.
 */
export const AUTHENTICATION_MEANINGS: Readonly<Record<string, string>> = {
  '20000': 'unknown API key',
  '20001': 'IP not allowed: register this egress address in the gateway console',
  '20002': 'password hash mismatch: check the API password',
  '20003': 'the gateway could not create a token',
  '20004': 'Authorization header error',
  '29011': 'token refused: re-authenticate',
  '29025': 'source IP not on the allowlist: register this egress address in the gateway console',
};

/** `20000`–`20004`, `29011`, `29025`: credentials, token or source IP were refused. */
export class GatewayAuthenticationError extends GatewayError {
  override readonly name = 'GatewayAuthenticationError';
  readonly retryable = false;

  constructor(context: GatewayErrorContext) {
    super(context);
    const meaning = AUTHENTICATION_MEANINGS[context.code];
    if (meaning !== undefined) this.message = `${this.message} (${context.code}: ${meaning})`;
  }
}

/**
 * A gateway error class that differs from the others only by its name and whether a retry is
 * safe. `name` is a literal, not read from the constructor, so it survives bundling and minifying.
 */
const gatewayErrorClass = <const N extends string>(name: N, retryable: boolean) => {
  const ErrorClass = class extends GatewayError {
    override readonly name: N = name;
    readonly retryable: boolean = retryable;
  };
  // The constructor keeps the name a class declaration would have given it (stack traces, logs).
  Object.defineProperty(ErrorClass, 'name', { value: name });
  return ErrorClass;
};

/** `29002`: the TPS quota was exceeded and the whole request was rejected; retry later. */
export const GatewayRateLimitedError = gatewayErrorClass('GatewayRateLimitedError', true);
/** `29005`, `29023`, `29024`: the gateway already accepted this `cliKey`. */
export const GatewayDuplicateError = gatewayErrorClass('GatewayDuplicateError', false);
/** A documented transient failure (`49xxx`, `29019`, …) or an HTTP 5xx; a retry is safe. */
export const GatewayRetryableError = gatewayErrorClass('GatewayRetryableError', true);
/** Any other code: the request is wrong or not allowed and will fail again unchanged. */
export const GatewayRejectedError = gatewayErrorClass('GatewayRejectedError', false);
/**
 * The gateway answered, but not in a shape the client understands (not JSON, or a body that
 * fails its schema). Whether the call took effect is unknown; sends are safe to retry because a
 * repeated `cliKey` answers with the duplicate family.
 */
export const GatewayResponseError = gatewayErrorClass('GatewayResponseError', true);

export type GatewayRateLimitedError = InstanceType<typeof GatewayRateLimitedError>;
export type GatewayDuplicateError = InstanceType<typeof GatewayDuplicateError>;
export type GatewayRetryableError = InstanceType<typeof GatewayRetryableError>;
export type GatewayRejectedError = InstanceType<typeof GatewayRejectedError>;
export type GatewayResponseError = InstanceType<typeof GatewayResponseError>;

/** No answer: the call timed out or the connection failed. Whether it took effect is unknown. */
export class GatewayTransportError extends GatewayError {
  override readonly name = 'GatewayTransportError';
  readonly retryable = true;
  readonly kind: 'timeout' | 'connection';

  constructor(kind: 'timeout' | 'connection', context: GatewayErrorContext) {
    super(context);
    this.kind = kind;
  }
}

export const AUTHENTICATION_CODES: ReadonlySet<string> = new Set([
  '20000',
  '20001',
  '20002',
  '20003',
  '20004',
  '29011',
  '29025',
]);
export const RATE_LIMITED_CODE = '29002';
export const DUPLICATE_CODES: ReadonlySet<string> = new Set(['29005', '29023', '29024']);
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  '21400',
  '22004',
  '23004',
  '23005',
  '29017',
  '29019',
  '29032',
  '31112',
  '31118',
  '65999',
]);

export type GatewayCodeFamily =
  | 'success'
  | 'authentication'
  | 'rate-limited'
  | 'duplicate'
  | 'retryable'
  | 'rejected';

/** The family of a gateway result code (top-level or per-recipient). */
export const classifyCode = (code: string, httpStatus?: number): GatewayCodeFamily => {
  if (code === '10000') return 'success';
  if (AUTHENTICATION_CODES.has(code)) return 'authentication';
  if (code === RATE_LIMITED_CODE) return 'rate-limited';
  if (DUPLICATE_CODES.has(code)) return 'duplicate';
  if (RETRYABLE_CODES.has(code) || code.startsWith('49')) return 'retryable';
  if (httpStatus !== undefined && httpStatus >= 500) return 'retryable';
  return 'rejected';
};

/** Builds the error class that matches a failed answer's code and HTTP status. */
export const errorForCode = (context: GatewayErrorContext): GatewayError => {
  switch (classifyCode(context.code, context.httpStatus)) {
    case 'authentication':
      return new GatewayAuthenticationError(context);
    case 'rate-limited':
      return new GatewayRateLimitedError(context);
    case 'duplicate':
      return new GatewayDuplicateError(context);
    case 'retryable':
      return new GatewayRetryableError(context);
    default:
      return new GatewayRejectedError(context);
  }
};
