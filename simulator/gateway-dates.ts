import { formatKst } from '../protocol/kst.ts';

/* The gateway's date-time texts, shared by reports, MO items and the status query. */

/** The number of date-time formats `mixed` rotates through (see {@link formatGatewayDate}). */
export const MIXED_DATE_FORMATS = 5;

/**
 * Formats a simulated instant as a gateway date-time. `standard` always writes zone-less KST
 * `YYYY-MM-DD HH:mm:ss`; `mixed` picks by `turn` one of the formats seen in production, so
 * consecutive items and the fields of one item differ: the three zone-less KST ones
 * (`YYYY-MM-DD HH:mm:ss`, `YYYY-MM-DDTHH:mm:ss`, `YYYYMMDDHHmmss`) and two with a zone (field
 * notes: "sometimes with a zone"): KST with its offset (`2026-11-24T23:00:00+09:00`) and the same
 * instant in UTC (`2026-11-24T14:00:00Z`). The UTC form is a simulator choice (the notes name no
 * zone): its wall-clock text differs from the KST one, so a client that drops the zone and reads
 * the text as KST is nine hours off and a test sees it.
 */
export const formatGatewayDate = (
  instant: number,
  style: 'standard' | 'mixed',
  turn: number,
): string => {
  const standard = formatKst(instant, 'YYYY-MM-DD HH:mm:ss');
  if (style === 'standard') return standard;
  switch (turn % MIXED_DATE_FORMATS) {
    case 0:
      return standard;
    case 1:
      return standard.replace(' ', 'T');
    case 2:
      return formatKst(instant, 'YYYYMMDDHHmmss');
    case 3:
      return `${standard.replace(' ', 'T')}+09:00`;
    default:
      return `${new Date(Math.floor(instant / 1000) * 1000).toISOString().slice(0, 19)}Z`;
  }
};

/**
 * A formatter that rotates through the formats of {@link formatGatewayDate} call by call (the
 * status query uses it); `standard` always writes `YYYY-MM-DD HH:mm:ss`.
 */
export const createDateFormatter = (style: 'standard' | 'mixed'): ((instant: number) => string) => {
  let turn = 0;
  return (instant) => formatGatewayDate(instant, style, turn++);
};
