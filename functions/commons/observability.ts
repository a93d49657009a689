import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { maskPhone, maskPhonesInText, PHONE_FIELDS } from './helpers/mask.ts';

/** Keys (compared in lower case) whose values are secrets: written as `[redacted]`, whatever they hold. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token',
  'refreshtoken',
  'apipwd',
  'apipassword',
  'authorization',
]);
const REDACTED = '[redacted]';
// A JWT (the gateway's tokens are JWTs) quoted inside free text, such as an error message.
const JWT_IN_TEXT = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/**
 * Log lines never carry a secret or a whole phone number: secret fields (`token`, `refreshToken`,
 * `apiPwd`, `apiPassword`, `authorization`, in any case) and JWTs inside text are redacted; phone
 * fields are masked by name and digit runs that look like Korean numbers are masked inside any
 * other string.
 */
export const maskingReplacer = (key: string, value: unknown): unknown => {
  if (value !== undefined && value !== null && SECRET_KEYS.has(key.toLowerCase())) return REDACTED;
  if (typeof value !== 'string') return value;
  if (PHONE_FIELDS.has(key) && value !== '*') return maskPhone(value);
  return maskPhonesInText(value.replace(JWT_IN_TEXT, REDACTED));
};

/** A logger for one function; service name and level come from POWERTOOLS_* variables. */
export const createLogger = (serviceName: string): Logger =>
  new Logger({ serviceName, jsonReplacerFn: maskingReplacer });

/** Metrics in the `msgbridge` namespace unless POWERTOOLS_METRICS_NAMESPACE says otherwise. */
export const createMetrics = (serviceName: string): Metrics =>
  new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'msgbridge', serviceName });

/** Adds each entry of `counts` as a metric of unit Count, named by its key. */
export const addCounts = (metrics: Metrics, counts: Readonly<Record<string, number>>): void => {
  for (const [name, value] of Object.entries(counts))
    metrics.addMetric(name, MetricUnit.Count, value);
};
