import type { SimClock } from './clock.ts';
import type { Faults, SimulatorOptions } from './options.ts';
import type { SimRequest, SimResponse } from './router.ts';
import type { Scheduler } from './scheduler.ts';

/** The channel a recipient was accepted on, as reports name it. */
export type SimChannel = 'SMS' | 'LMS' | 'MMS' | 'RCS' | 'PUSH' | 'MSGR' | 'BRAND';

export interface SimFallback {
  readonly ch: 'SMS' | 'MMS';
}

/** One accepted recipient of one send call: what reports and the status query are made from. */
export interface SentRecipient {
  readonly msgKey: string;
  readonly cliKey: string;
  /** Recipient number (absent for push without a fallback number). */
  readonly phone?: string;
  readonly channel: SimChannel;
  readonly productCode: string;
  /** Fallback channels from `fbInfoLst`, in order. */
  readonly fallbacks: readonly SimFallback[];
  readonly userCustomFields?: Record<string, unknown>;
  /** Two-way RCS reply. */
  readonly isBi: boolean;
  readonly campaignId?: string;
  /** Simulated time of the send call. */
  readonly requestedAt: number;
  /** When the message goes out: `requestedAt`, or the scheduled time of a `resvYn=Y` send. */
  readonly deliverAt: number;
  status: 'REG' | 'ING' | 'DONE';
  /** Set once the report exists. */
  result?: SimResult;
}

export interface SimResult {
  readonly ch: string;
  readonly resultCode: string;
  readonly resultCodeDesc: string;
  readonly telco: string;
  readonly fbReasonLst: ReadonlyArray<{
    ch: string;
    fbResultCode: string;
    fbResultDesc: string;
    telco: string;
  }>;
  /**
   * The billed product when it differs from the recipient's (a fallback bills SMS or MMS);
   * absent means `SentRecipient.productCode`.
   */
  readonly productCode?: string;
  /** Simulated time the result was registered. */
  readonly reportedAt: number;
}

export interface SimState {
  /** Every accepted recipient by `cliKey` (the status query and duplicate checks read it). */
  readonly recipients: Map<string, SentRecipient>;
}

export interface SimHooks {
  /** Called once per accepted recipient; the reports module schedules its report. */
  onAccepted(recipient: SentRecipient): void;
}

export interface SimContext {
  readonly options: SimulatorOptions;
  readonly clock: SimClock;
  readonly scheduler: Scheduler;
  readonly state: SimState;
  readonly hooks: SimHooks;
  /** Current fault settings (mutable at run time). */
  faults: Faults;
  /** Seeded pseudo-random number in [0, 1). */
  random(): number;
  /** A new unique id with the given prefix. */
  nextId(prefix: string): string;
  /** Answers an authentication-family error when the bearer token is missing, bad, expired or revoked. */
  requireBearer(request: SimRequest): SimResponse | undefined;
  /** Answers `20000` unless the `apiKey` header names the configured key (opt-out endpoints). */
  requireApiKeyHeader(request: SimRequest): SimResponse | undefined;
  log(line: string): void;
}

/** The gateway's envelope. */
export const envelope = (
  code: string,
  message: string,
  data?: unknown,
  status = 200,
): SimResponse => ({
  status,
  body: data === undefined ? { code, message } : { code, message, data },
});

export const ok = (data?: unknown): SimResponse => envelope('10000', 'success', data);
