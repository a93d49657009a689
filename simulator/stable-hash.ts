/**
 * FNV-1a: a stable small hash, so the same input always gives the same value across runs and
 * seeds (a phone's carrier, an MO sender's carrier, seeded ids and statistics).
 */
export const stableHash = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};
