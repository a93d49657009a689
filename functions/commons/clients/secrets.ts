import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traceAwsClient } from '../tracing.ts';

// One provider per container, created on first use; its cache is shared by every secret read.
let shared: SecretsProvider | undefined;

/**
 * Reads a JSON secret from Secrets Manager through Powertools Parameters, cached for
 * `maxAgeSeconds`, on a client traced as `traceAwsClient` says.
 */
export const getJsonSecret = (secretId: string, maxAgeSeconds: number): Promise<unknown> => {
  shared ??= new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  return shared.get(secretId, { maxAge: maxAgeSeconds, transform: 'json' });
};
