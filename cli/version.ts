import { readFileSync } from 'node:fs';

/** The version of the msgbridge package this command belongs to (its package.json). */
export const packageVersion = (): string => {
  const manifest = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
};
