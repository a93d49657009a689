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

/** A variable that may be left out: `undefined` when unset or blank. */
export const optionalEnv = (name: string, env: Environment = process.env): string | undefined => {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
};

/**
 * One of `values`; `fallback` when unset or blank (without one, the variable is required). The
 * value is taken exactly as written: `Polling` is not `polling`.
 */
export const enumEnv = <const T extends string>(
  name: string,
  values: readonly T[],
  fallback?: NoInfer<T>,
  env: Environment = process.env,
): T => {
  const raw = optionalEnv(name, env);
  if (raw === undefined) {
    if (fallback === undefined) throw new Error(`environment variable ${name} is required`);
    return fallback;
  }
  const value = values.find((candidate) => candidate === raw);
  if (value === undefined)
    throw new Error(
      `environment variable ${name} must be one of ${values.join(', ')}, got "${raw}"`,
    );
  return value;
};

/** A switch written `on` or `off` (as the stack writes them); `fallback` when unset or blank. */
export const booleanEnv = (
  name: string,
  fallback: boolean,
  env: Environment = process.env,
): boolean => enumEnv(name, ['on', 'off'], fallback ? 'on' : 'off', env) === 'on';

/** A comma-separated list, each entry trimmed, empty entries left out; `[]` when unset or blank. */
export const listEnv = (name: string, env: Environment = process.env): string[] =>
  (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
