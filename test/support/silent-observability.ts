import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** A SILENT logger and throwaway metrics, for a composition under test. */
export const silentObservability = () => ({
  logger: new Logger({ logLevel: 'SILENT' }),
  metrics: new Metrics({ namespace: 'test', serviceName: 'test' }),
});
