import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { maskPhone, maskPhonesInText, PHONE_FIELDS } from './helpers/mask.ts';

/**
 * Log lines never carry a whole phone number: phone fields are masked by name and digit runs that
 * look like Korean numbers are masked inside any other string.
 */
export const maskingReplacer = (key: string, value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  if (PHONE_FIELDS.has(key) && value !== '*') return maskPhone(value);
  return maskPhonesInText(value);
};

/** A logger for one function; service name and level come from POWERTOOLS_* variables. */
export const createLogger = (serviceName: string): Logger =>
  new Logger({ serviceName, jsonReplacerFn: maskingReplacer });

/** Metrics in the `msgbridge` namespace unless POWERTOOLS_METRICS_NAMESPACE says otherwise. */
export const createMetrics = (serviceName: string): Metrics =>
  new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'msgbridge', serviceName });
