import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

// One provider per client, created on first use; its cache is shared by every secret read.
let shared: SecretsProvider | undefined;
const byClient = new WeakMap<SecretsManagerClient, SecretsProvider>();

/** The provider of `client`, or the container's own. */
const provider = (client?: SecretsManagerClient): SecretsProvider => {
  if (client === undefined) {
    shared ??= new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
    return shared;
  }
  let own = byClient.get(client);
  if (own === undefined) {
    own = new SecretsProvider({ awsSdkV3Client: client });
    byClient.set(client, own);
  }
  return own;
};

/**
 * Reads a JSON secret from Secrets Manager through Powertools Parameters, cached for
 * `maxAgeSeconds`, on `client` (the local run's) or the container's own.
 */
export const getJsonSecret = (
  secretId: string,
  maxAgeSeconds: number,
  client?: SecretsManagerClient,
): Promise<unknown> => provider(client).get(secretId, { maxAge: maxAgeSeconds, transform: 'json' });

/** Reads a secret's string as it is stored, cached like `getJsonSecret`. */
export const getSecretText = async (
  secretId: string,
  maxAgeSeconds: number,
  client?: SecretsManagerClient,
): Promise<string> => {
  const value = await provider(client).get(secretId, { maxAge: maxAgeSeconds });
  return typeof value === 'string' ? value : '';
};
