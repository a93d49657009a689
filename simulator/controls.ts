import type { MoInjectionSchema, MoItem, MoSnapshot } from './mo.ts';
import type { Faults } from './options.ts';
import type { ReportsSnapshot } from './reports.ts';
import type { SendingSnapshot } from './sending.ts';
import type * as z from './zod.ts';

/*
 * The contract a running simulator is driven through, in its own module: the server implements
 * it and the `/_sim/` endpoints (control.ts) call it, so neither has to import the other.
 */

export type MoInjectionInput = z.input<typeof MoInjectionSchema>;

export interface SimSnapshot extends SendingSnapshot {
  /** Simulated time, ISO 8601. */
  readonly now: string;
  readonly authentications: number;
  readonly refreshes: number;
  /** Access tokens issued, by authentication or refresh. */
  readonly tokensIssued: number;
  readonly faults: Faults;
  readonly reports: ReportsSnapshot;
  readonly mo: MoSnapshot;
}

/** What tests and the `/_sim/` endpoints drive a running simulator with. */
export interface SimControls {
  /** Moves the simulated clock forward and runs everything that became due (reports, webhooks). */
  advance(ms: number): Promise<void>;
  /** Runs everything already due and waits for it, without moving the clock. */
  settle(): Promise<void>;
  /** Changes some fault settings (throws `ZodError` on a bad value); returns those in force. */
  setFaults(partial: Partial<Faults>): Faults;
  /** Every token issued so far stops working (`29011`). */
  revokeTokens(): void;
  /** Makes end users "send" inbound messages; returns the MO items created. */
  injectMo(items: readonly MoInjectionInput[]): MoItem[];
  snapshot(): SimSnapshot;
}
