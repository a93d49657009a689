/**
 * The refresh-token handler (the Lambda's and the local run's) when the credentials secret still
 * holds the random string the stack created it with: one warning that says how to fill it in, a
 * metric the token alarm reads, and no stack trace or error for the schedule to retry.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TokenIssuer } from '../../functions/gateway-access/token-state.ts';
import { composeRefreshToken } from '../../functions/tokens/compose.ts';

// One secret per test: Powertools caches a secret's value for five minutes.
const secretArn = (name: string) =>
  `arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:${name}-AbCdEf`;

const environment = (arn: string) => ({
  GATEWAY_API_URL: 'https://api.gw.example',
  GATEWAY_SEND_URL: 'https://send.gw.example',
  GATEWAY_MNT_URL: 'https://mnt.gw.example',
  STATE_TABLE_NAME: 'state',
  GATEWAY_CREDENTIALS_SECRET_ARN: arn,
});

const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());

const refresher = (arn: string) => {
  const logger = new Logger({ logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'test', serviceName: 'refresh-token' });
  const warn = vi.spyOn(logger, 'warn');
  const error = vi.spyOn(logger, 'error');
  const added = vi.spyOn(metrics, 'addMetric');
  const auth: TokenIssuer = {
    issueToken: vi.fn(async () => ({ token: 'access', refreshToken: 'refresh' })),
    refreshAccessToken: vi.fn(async () => ({ token: 'access' })),
  };
  const composed = composeRefreshToken(environment(arn), { logger, metrics, auth: auth as never });
  // No token stored yet: the run authenticates, which needs the credentials.
  composed.deps.store.read = async () => undefined;
  return { composed, warn, error, added, auth };
};

describe('refresh-token with credentials not filled in', () => {
  it('warns once with the fix, counts it, and does not throw, when the secret is the random string the stack created', async () => {
    // Prepare: what CloudFormation's GenerateSecretString leaves in a new secret.
    const arn = secretArn('random');
    secrets.on(GetSecretValueCommand).resolves({ ARN: arn, SecretString: 'x9;Q^b&Zr2!vT#0kLm~Pq' });
    const { composed, warn, error, added, auth } = refresher(arn);

    // Act
    const run = await composed.handler();

    // Assess
    expect(run).toEqual({ outcome: 'credentials-not-set' });
    expect(auth.issueToken).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    const [message, extra] = warn.mock.calls[0] ?? [];
    expect(message).toContain(`put-secret-value --secret-id ${arn}`);
    expect(extra).toEqual({ secretArn: arn });
    expect(added).toHaveBeenCalledWith('GatewayCredentialsNotSet', 'Count', 1);
    expect(added).toHaveBeenCalledWith('TokenRefreshFailures', 'Count', 1);
  });

  it('treats well-formed JSON without the credentials the same way', async () => {
    const arn = secretArn('partial');
    secrets.on(GetSecretValueCommand).resolves({ ARN: arn, SecretString: '{"apiKey":""}' });
    const { composed } = refresher(arn);

    await expect(composed.handler()).resolves.toEqual({ outcome: 'credentials-not-set' });
  });

  it('still throws any other failure, for the schedule to retry', async () => {
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDeniedException'));
    const { composed, error } = refresher(secretArn('denied'));

    await expect(composed.handler()).rejects.toThrow('AccessDeniedException');
    expect(error).toHaveBeenCalledTimes(1);
  });
});
