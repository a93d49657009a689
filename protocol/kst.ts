/**
 * The gateway writes local date-times without a zone; they are Korean Standard Time (UTC+09:00,
 * no daylight saving). These helpers convert them explicitly instead of trusting `new Date()`.
 */
const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

const ZONE = '(?<zone>Z|[+-]\\d{2}:?\\d{2})';
// YYYY-MM-DD[( |T)HH:mm[:ss[.fff]]][zone]
const SEPARATED = new RegExp(
  `^(?<y>\\d{4})-(?<mo>\\d{2})-(?<d>\\d{2})(?:[ T](?<h>\\d{2}):(?<mi>\\d{2})(?::(?<s>\\d{2})(?:[.,](?<f>\\d{1,9}))?)?)?\\s*${ZONE}?$`,
);
// YYYYMMDDHHmm[ss][zone]
const COMPACT = new RegExp(
  `^(?<y>\\d{4})(?<mo>\\d{2})(?<d>\\d{2})(?<h>\\d{2})(?<mi>\\d{2})(?<s>\\d{2})?${ZONE}?$`,
);

/**
 * Parses a gateway date-time in any of the formats seen in production (`YYYY-MM-DD HH:mm:ss`,
 * `YYYY-MM-DDTHH:mm:ss`, `YYYYMMDDHHmmss`, `YYYY-MM-DD HH:mm`, a date alone, and any of these
 * with a zone) and returns the instant as a UTC ISO string. A value without a zone is KST.
 * Returns `undefined` for anything else, including impossible dates such as February 30.
 */
export const parseGatewayDateTime = (value: string): string | undefined => {
  const text = value.trim();
  const groups = (SEPARATED.exec(text) ?? COMPACT.exec(text))?.groups;
  if (!groups) return undefined;
  const year = Number(groups.y);
  const month = Number(groups.mo);
  const day = Number(groups.d);
  const hour = Number(groups.h ?? 0);
  const minute = Number(groups.mi ?? 0);
  const second = Number(groups.s ?? 0);
  const millis = groups.f ? Number(groups.f.slice(0, 3).padEnd(3, '0')) : 0;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wallClock = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(wallClock);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day
  ) {
    return undefined;
  }
  return new Date(wallClock - zoneOffsetMs(groups.zone)).toISOString();
};

const zoneOffsetMs = (zone: string | undefined): number => {
  if (zone === undefined) return KST_OFFSET_MS;
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
};

type KstPattern = 'YYYY-MM-DD HH:mm:ss' | 'YYYY-MM-DD HH:mm' | 'YYYY-MM-DD' | 'YYYYMMDDHHmmss';

/** Formats an instant as a zone-less KST date-time in one of the gateway's patterns. */
export const formatKst = (instant: Date | number, pattern: KstPattern): string => {
  const shifted = new Date(
    (typeof instant === 'number' ? instant : instant.getTime()) + KST_OFFSET_MS,
  );
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`;
  const time = `${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`;
  switch (pattern) {
    case 'YYYY-MM-DD':
      return date;
    case 'YYYY-MM-DD HH:mm':
      return `${date} ${time.slice(0, 5)}`;
    case 'YYYY-MM-DD HH:mm:ss':
      return `${date} ${time}`;
    case 'YYYYMMDDHHmmss':
      return `${date}${time}`.replace(/[-:]/g, '');
  }
};
