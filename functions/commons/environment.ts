/**
 * Reads Lambda configuration from the environment once, at cold start, and fails fast: a missing
 * or malformed variable stops the function with a message naming it, instead of a silent default.
 */

/** Where configuration is read from: `process.env` in a Lambda, an object of its own in the local run. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A variable that must be set and not blank. */
export const requiredEnv = (name: string, env: Environment = process.env): string => {
  const value = env[name];
  if (value === undefined || value.trim() === '')
    throw new Error(`environment variable ${name} is required`);
  return value;
};

/** An integer variable with a documented default, checked against its range. */
export const integerEnv = (
  name: string,
  fallback: number,
  range: { min: number; max: number },
  env: Environment = process.env,
): number => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new Error(
      `environment variable ${name} must be an integer from ${range.min} to ${range.max}, got "${raw}"`,
    );
  }
  return value;
};
