/**
 * Masks a phone number for logs, keeping what an operator needs to tell numbers apart: the
 * prefix and the last four digits (`010****5678`). Short or odd values are masked whole.
 */
export const maskPhone = (value: string): string => {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 8) return '*'.repeat(value.length);
  return `${digits.slice(0, 3)}${'*'.repeat(digits.length - 7)}${digits.slice(-4)}`;
};

/** Field names whose values are phone numbers in gateway requests, reports and MO items. */
export const PHONE_FIELDS: ReadonlySet<string> = new Set([
  'phone',
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

// Korean mobile and landline numbers, with or without hyphens, and +82 forms.
const PHONE_IN_TEXT = /(?<!\d)(?:\+?82-?|0)(?:1[016789]|[2-6]\d?|70|50\d?)-?\d{3,4}-?\d{4}(?!\d)/g;

/** Masks phone-number-looking digit runs inside free text. */
export const maskPhonesInText = (text: string): string =>
  text.replace(PHONE_IN_TEXT, (match) => maskPhone(match));
