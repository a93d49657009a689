/**
 * Reads Lambda configuration from the environment once, at cold start, and fails fast: a missing
 * or malformed variable stops the function with a message naming it, instead of a silent default.
 */
export const requiredEnv = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value.trim() === '')
    throw new Error(`environment variable ${name} is required`);
  return value;
};

/** An integer variable with a documented default, checked against its range. */
export const integerEnv = (
  name: string,
  fallback: number,
  range: { min: number; max: number },
): number => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new Error(
      `environment variable ${name} must be an integer from ${range.min} to ${range.max}, got "${raw}"`,
    );
  }
  return value;
};
