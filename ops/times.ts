import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';

/*
 * One rule for every time an operator reads (the CLI's human output, the console, the local run's
 * event lines): KST with its zone shown, the zone of the gateway and of its users, or UTC with its
 * zone when asked (`--utc`). What a machine reads (`--json`, events.jsonl, the events themselves)
 * stays ISO 8601 in UTC, so operations' data carries ISO instants and only the printing formats.
 */

/** The zone an operator reads times in. */
export type TimeZoneShown = 'KST' | 'UTC';

/** An ISO 8601 instant in UTC as this codebase writes them (`Date#toISOString`, or without ms). */
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z\b/g;

/**
 * An instant as an operator reads it: `2026-12-07 13:05:09 KST`, or `2026-12-07 04:05:09 UTC`;
 * with `millis`, `13:05:09.120`. A string that is not a time is returned as it is.
 */
export const formatTime = (
  at: Date | number | string,
  zone: TimeZoneShown = 'KST',
  options: { readonly millis?: boolean } = {},
): string => {
  const ms = typeof at === 'string' ? Date.parse(at) : typeof at === 'number' ? at : at.getTime();
  if (Number.isNaN(ms)) return String(at);
  const fraction = options.millis
    ? `.${String(new Date(ms).getUTCMilliseconds()).padStart(3, '0')}`
    : '';
  const wallClock =
    zone === 'KST'
      ? formatKst(ms, 'YYYY-MM-DD HH:mm:ss')
      : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  return `${wallClock}${fraction} ${zone}`;
};

/**
 * `text` with each ISO 8601 UTC instant in it (a check's detail, a trace summary) shown by
 * {@link formatTime}: what operations say for `--json` in ISO, the human output says by the rule.
 */
export const formatTimesIn = (text: string, zone: TimeZoneShown = 'KST'): string =>
  text.replace(ISO_INSTANT, (instant) => formatTime(instant, zone));

/** A gateway date-time: a date and at least hours and minutes, separated or compact. */
const GATEWAY_DATE_TIME = /^\s*\d{4}-?\d{2}-?\d{2}[ T]?\d{2}:?\d{2}/;

/**
 * A date-time the gateway wrote (KST wall-clock time without a zone, protocol/kst.ts) shown by
 * {@link formatTime}: `2024-05-01 10:00:00` is `2024-05-01 10:00:00 KST`. A date alone is a KST
 * calendar day, not an instant, and is returned as it is, as is anything that is not a date-time.
 */
export const formatGatewayTime = (value: string, zone: TimeZoneShown = 'KST'): string => {
  if (!GATEWAY_DATE_TIME.test(value)) return value;
  const instant = parseGatewayDateTime(value);
  return instant === undefined ? value : formatTime(instant, zone);
};
