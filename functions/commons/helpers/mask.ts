/**
 * Masks a phone number for logs, keeping what an operator needs to tell numbers apart: the
 * prefix and the last four digits (`010****5678`). Short or odd values are masked whole.
 */
export const maskPhone = (value: string): string => {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 8) return '*'.repeat(value.length);
  return `${digits.slice(0, 3)}${'*'.repeat(digits.length - 7)}${digits.slice(-4)}`;
};

/**
 * Field names whose values are phone numbers in gateway requests, reports and MO items, and in
 * the events made of them (an MO's `sender` and `receivingNumber`).
 */
export const PHONE_FIELDS: ReadonlySet<string> = new Set([
  'phone',
  'sender',
  'receivingNumber',
  'callback',
  'moCallback',
  'moNumber',
  'blockNumber',
  'aniNumber',
  'unsubscribePhoneNumber',
  'footer',
  'mdn',
  'subNum',
]);

/**
 * Returns a deep copy of `value` with every phone-number field masked and phone-like digit runs
 * inside free text masked too. Used for log output; never for stored data.
 */
export const maskPhonesDeep = (value: unknown): unknown => {
  if (typeof value === 'string') return maskPhonesInText(value);
  if (Array.isArray(value)) return value.map(maskPhonesDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        PHONE_FIELDS.has(key) && typeof inner === 'string' && inner !== '*'
          ? maskPhone(inner)
          : maskPhonesDeep(inner),
      ]),
    );
  }
  return value;
};

/*
 * Korean mobile and landline numbers as people write them: digits run together or grouped by a
 * hyphen, a dot or spaces (`010-1234-5678`, `010.1234.5678`, `010 1234 5678`), the area code in
 * parentheses (`(02) 123-4567`), and the international forms (`+82 10 1234 5678`,
 * `+82-10-1234-5678`, `+82 (0)10 …`, `821012345678`).
 */
const SEP = String.raw`[ .\-\u00a0]?`;
const PREFIX = String.raw`(?:\+${SEP}82${SEP}(?:\(0\)${SEP})?|(?<!\+)82${SEP}|\(0|0)`;
const AREA = '(?:1[016789]|2|[3-6][1-5]|70|50[2-8]?)';
const PHONE_IN_TEXT = new RegExp(
  String.raw`(?<![\d+])${PREFIX}${AREA}\)?${SEP}\d{3,4}${SEP}\d{4}(?!\d)`,
  'g',
);

/** Masks phone-number-looking digit runs inside free text. */
export const maskPhonesInText = (text: string): string =>
  text.replace(PHONE_IN_TEXT, (match) => maskPhone(match));
