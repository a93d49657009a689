/**
 * A Secrets Manager client that holds the given secrets, for compositions that read theirs by ARN
 * as deployed (`WEBHOOK_SECRET_ARN`, `GATEWAY_CREDENTIALS_SECRET_ARN`): the SDK's own client, its
 * `GetSecretValue` answered by aws-sdk-client-mock from the values given.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';

export const secretsClientHolding = (values: Readonly<Record<string, string>>) => {
  const client = new SecretsManagerClient({
    region: 'ap-northeast-2',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const mock = mockClient(client);
  mock.on(GetSecretValueCommand).callsFake(async (input: { SecretId?: string }) => {
    const value = input.SecretId === undefined ? undefined : values[input.SecretId];
    if (value === undefined)
      throw Object.assign(new Error("Secrets Manager can't find the specified secret."), {
        name: 'ResourceNotFoundException',
      });
    return { ARN: input.SecretId, SecretString: value };
  });
  return client;
};

/** The ARN and client of a webhook secret `{"current": value}`. */
export const webhookSecretHolding = (current: string) => {
  const arn = 'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:webhook-secret-AbCdEf';
  return { arn, secrets: secretsClientHolding({ [arn]: JSON.stringify({ current }) }) };
};

/** The ARN and client of gateway credentials `{"apiKey", "apiPassword"}`. */
export const gatewayCredentialsHolding = (apiKey: string, apiPassword: string) => {
  const arn =
    'arn:aws:secretsmanager:ap-northeast-2:123456789012:secret:gateway-credentials-AbCdEf';
  return { arn, secrets: secretsClientHolding({ [arn]: JSON.stringify({ apiKey, apiPassword }) }) };
};
