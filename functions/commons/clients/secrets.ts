import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { traceAwsClient } from '../tracing.ts';

// One provider per container, created on first use; its cache is shared by every secret read.
let shared: SecretsProvider | undefined;

const provider = (): SecretsProvider => {
  shared ??= new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  return shared;
};

/**
 * Reads a JSON secret from Secrets Manager through Powertools Parameters, cached for
 * `maxAgeSeconds`, on a client traced as `traceAwsClient` says.
 */
export const getJsonSecret = (secretId: string, maxAgeSeconds: number): Promise<unknown> =>
  provider().get(secretId, { maxAge: maxAgeSeconds, transform: 'json' });

/** Reads a secret's string as it is stored, cached like `getJsonSecret`. */
export const getSecretText = async (secretId: string, maxAgeSeconds: number): Promise<string> => {
  const value = await provider().get(secretId, { maxAge: maxAgeSeconds });
  return typeof value === 'string' ? value : '';
};
