import * as z from './zod.ts';

const rate = z.number().check(z.minimum(0), z.maximum(1));

/** Fault injection, changeable at run time through `setFaults` or `POST /_sim/faults`. */
export const FaultsSchema = z.strictObject({
  /** Fraction of gateway calls answered HTTP 503 with a retryable code. */
  errorRate: z._default(rate, 0),
  /** Extra latency added to every gateway call, in real milliseconds. */
  latencyMs: z._default(z.int().check(z.minimum(0)), 0),
  /**
   * Up to this many real milliseconds more, drawn uniformly per gateway call (whole ms, both ends
   * included) from a PRNG of its own seeded by `seed`: `latencyMs` 50 with 100 here answers in
   * 50–150 ms, as a real gateway varies, without shifting the outcome mix's draws.
   */
  latencyJitterMs: z._default(z.int().check(z.minimum(0)), 0),
  /** Fraction of gateway calls that never answer (the connection is held, then dropped). */
  timeoutRate: z._default(rate, 0),
  /** The next N send calls answer `29002` (rate limit exceeded). */
  rateLimitBurst: z._default(z.int().check(z.minimum(0)), 0),
  /** Fraction of webhook posts that are delivered twice. */
  duplicateWebhookRate: z._default(rate, 0),
  /**
   * Fraction of gateway calls refused with HTTP 200 and a failure code (`29018`, `29019` or
   * `29039`): the field notes' failures that only the envelope's `code` tells apart.
   */
  http200ErrorRate: z._default(rate, 0),
  /** Fraction of token issuances and refreshes refused `20003` (token creation error). */
  tokenErrorRate: z._default(rate, 0),
  /**
   * Fraction of delivery reports never handed out, by webhook or by polling, although the status
   * query knows them: the late reports the report checks must find.
   */
  reportWithholdRate: z._default(rate, 0),
});
export type Faults = z.infer<typeof FaultsSchema>;

/** Every setting of the simulator; the command line exposes each one (see `--help`). */
export const SimulatorOptionsSchema = z.strictObject({
  host: z._default(z.string(), '127.0.0.1'),
  /** 0 picks an ephemeral port. */
  port: z._default(z.int().check(z.minimum(0), z.maximum(65_535)), 0),
  apiKey: z.string().check(z.minLength(1), z.maxLength(20)),
  apiPassword: z.string().check(z.minLength(1)),
  /** `manual` stands still until advanced; `real` follows the wall clock (and can be advanced). */
  clock: z._default(z.enum(['real', 'manual']), 'real'),
  /** Seed of the pseudo-random outcome mix and fault draws, so runs are reproducible. */
  seed: z._default(z.int(), 1),
  accessTokenTtlSeconds: z._default(z.int().check(z.positive()), 3_600),
  refreshTokenTtlSeconds: z._default(z.int().check(z.positive()), 90_000),
  /** Per-recipient TPS quota: recipients accepted per simulated second across all send calls. */
  tpsQuota: z._default(z.int().check(z.positive()), 100),
  /** A `cliKey` seen again within this window answers a duplicate code. */
  duplicateWindowSeconds: z._default(z.int().check(z.positive()), 86_400),
  /** Delay between an accepted recipient's delivery time and its report. */
  reportDelayMs: z._default(z.int().check(z.minimum(0)), 2_000),
  /** Fraction of recipients whose first channel fails. */
  failureRate: z._default(rate, 0.1),
  /** Fraction of first-channel failures that fall back when the send carried `fbInfoLst`. */
  fallbackRate: z._default(rate, 0.7),
  /** Fraction of messenger recipients reported `32114` (success uncertain). */
  uncertainRate: z._default(rate, 0.02),
  /** How reports leave: by polling, by webhook, or both. Default: webhook when a URL is set. */
  reportDelivery: z.optional(z.enum(['polling', 'webhook', 'both'])),
  reportWebhookUrl: z.optional(z.url()),
  moWebhookUrl: z.optional(z.url()),
  webhookRetryIntervalMs: z._default(z.int().check(z.positive()), 10_000),
  webhookTimeoutMs: z._default(z.int().check(z.positive()), 5_000),
  /** Undelivered webhook reports are dropped after this long (72 h). */
  webhookRetentionMs: z._default(z.int().check(z.positive()), 72 * 3_600_000),
  /** Reports per poll page and per webhook body. */
  reportBatchSize: z._default(z.int().check(z.minimum(1), z.maximum(100)), 100),
  confirmWindowMs: z._default(z.int().check(z.positive()), 120_000),
  minEmptyPollIntervalMs: z._default(z.int().check(z.minimum(0)), 10_000),
  /** Reports nobody polled for are removed after this long (81 h). */
  pollExpiryMs: z._default(z.int().check(z.positive()), 81 * 3_600_000),
  moRetentionMs: z._default(z.int().check(z.positive()), 7 * 86_400_000),
  contentUrlValidityMs: z._default(z.int().check(z.positive()), 86_400_000),
  /**
   * `mixed` writes report and MO date-times in every format seen in production, some with a
   * zone; `standard` writes `YYYY-MM-DD HH:mm:ss` KST only.
   */
  dateStyle: z._default(z.enum(['standard', 'mixed']), 'mixed'),
  /**
   * Source addresses allowed to call the gateway (its console's allowlist of single addresses).
   * Absent: every address is allowed. Token issuance from another address answers `20001`,
   * any other bearer call `29025`.
   */
  allowedIps: z.optional(z.array(z.union([z.ipv4(), z.ipv6()])).check(z.minLength(1))),
  /**
   * The code a repeated `cliKey` is answered with: one of the duplicate family, or `mixed`
   * (drawn per answer from all three, as the real gateway does).
   */
  duplicateCode: z._default(z.enum(['29005', '29023', '29024', 'mixed']), 'mixed'),
  /** How an empty poll answers: `data: null`, `rptCnt: 0` with an empty list, or either. */
  emptyPollStyle: z._default(z.enum(['null', 'zero', 'mixed']), 'mixed'),
  /**
   * How a report without fallback writes `fbReasonLst`: always `[]` (`list`), or `[]`, `null`
   * or no field at all (`mixed`).
   */
  fbReasonStyle: z._default(z.enum(['list', 'mixed']), 'mixed'),
  /** `shuffled` delivers reports out of order, within a page or body and across them. */
  reportOrder: z._default(z.enum(['ordered', 'shuffled']), 'shuffled'),
  /**
   * The API key belongs to an internal-approval customer: a rejected (`S`) messenger template
   * may be sent for review again (spec 02 §3), not only a registered (`T`) one.
   */
  internalApproval: z._default(z.boolean(), false),
  faults: z._default(FaultsSchema, FaultsSchema.parse({})),
  /** Print one line per gateway call and webhook delivery. */
  verbose: z._default(z.boolean(), false),
});
export type SimulatorOptionsInput = z.input<typeof SimulatorOptionsSchema>;
export type SimulatorOptions = z.output<typeof SimulatorOptionsSchema>;
