import type { StatusQueryData } from '../../gateway/schemas/index.ts';
import { formatKst } from '../../protocol/kst.ts';

/*
 * The gateway's status query as reconcile-status uses it, for late reports and for unknown
 * outcomes alike: the port and the KST date each key is asked with.
 */

/** The status query (spec 01 §4.13): 1 to 10 keys, each with the KST date of its send. */
export interface StatusGateway {
  queryStatus(keys: Array<{ cliKey: string; reqDt: string }>): Promise<StatusQueryData>;
}

const DAY_MS = 86_400_000;

/** The KST calendar date (`YYYY-MM-DD`) of an instant, shifted by whole days. */
export const kstDate = (iso: string, days: number): string =>
  formatKst(Date.parse(iso) + days * DAY_MS, 'YYYY-MM-DD');
