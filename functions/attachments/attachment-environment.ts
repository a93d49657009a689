import type { Logger } from '@aws-lambda-powertools/logger';
import {
  DynamoDbAttachmentEvents,
  DynamoDbPendingAttachments,
} from '../attachments/adapters/dynamodb-attachment-store.ts';
import { GatewayAttachmentDownloads } from '../attachments/adapters/gateway-attachment-downloads.ts';
import { S3ObjectStorage } from '../attachments/adapters/s3-object-storage.ts';
import { integerEnv, requiredEnv } from '../commons/environment.ts';
import { gatewayFromEnvironment } from '../commons/gateway-environment.ts';
import { ContentUrlPolicy, contentHostProblems } from './content-url-policy.ts';
import type { FetchAttachmentsDeps } from './fetch-attachments.ts';

/**
 * The adapters of `fetch-attachments` and `sweep-attachments`, from the environment (read once,
 * at cold start; a missing variable stops the function): EVENT_TABLE_NAME, STATE_TABLE_NAME,
 * ATTACHMENT_BUCKET, ATTACHMENT_PREFIX (default `inbound/`), EVENT_RETENTION_DAYS (default 35),
 * GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_TIMEOUT_MS (default 10 000),
 * GATEWAY_CREDENTIALS_SECRET_ARN and ATTACHMENT_CONTENT_HOSTS (optional). Content URLs are fetched
 * only over https from the gateway's three hosts and the extra hosts of ATTACHMENT_CONTENT_HOSTS.
 */
export const attachmentDepsFromEnvironment = (logger: Logger): FetchAttachmentsDeps => {
  const stateTable = requiredEnv('STATE_TABLE_NAME');
  const { client: gateway, timeoutMs, hosts } = gatewayFromEnvironment(logger);
  const contentUrls = ContentUrlPolicy.forGateway(
    [hosts.api, hosts.send, hosts.mnt],
    contentHostsFromEnvironment(),
  );
  return {
    downloads: new GatewayAttachmentDownloads(gateway, { timeoutMs, contentUrls }),
    storage: new S3ObjectStorage(requiredEnv('ATTACHMENT_BUCKET')),
    pending: new DynamoDbPendingAttachments(stateTable, undefined, (pk, issues) =>
      logger.error('unreadable pending-attachment marker left alone', { pk, issues }),
    ),
    events: new DynamoDbAttachmentEvents(requiredEnv('EVENT_TABLE_NAME')),
    now: () => new Date(),
    retentionDays: integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }),
    keyPrefix: keyPrefix(process.env.ATTACHMENT_PREFIX ?? 'inbound/'),
  };
};

/** A key prefix ends in `/` (or is empty, for the bucket's root) and never starts with one. */
const keyPrefix = (value: string): string => {
  const trimmed = value.trim().replace(/^\/+/, '');
  if (!/^[A-Za-z0-9!_.*'()/-]*$/.test(trimmed)) {
    throw new Error(
      `environment variable ATTACHMENT_PREFIX has characters unsafe in S3 keys: "${value}"`,
    );
  }
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
};

/**
 * ATTACHMENT_CONTENT_HOSTS: extra hosts (`host` or `host:port`, comma-separated, DNS names only)
 * that content URLs may name besides the gateway's own; unset or empty for none.
 */
export const contentHostsFromEnvironment = (): string[] => {
  const raw = process.env.ATTACHMENT_CONTENT_HOSTS ?? '';
  const hosts = raw
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  const problems = contentHostProblems(hosts);
  if (problems.length > 0)
    throw new Error(`environment variable ATTACHMENT_CONTENT_HOSTS: ${problems.join('; ')}`);
  return hosts;
};
