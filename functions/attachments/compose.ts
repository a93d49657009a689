import type { GatewayClient } from '../../gateway/client.ts';
import { GatewayMoFileClient } from '../../gateway/mo-files.ts';
import { type CompositionOverrides, observabilityOf } from '../commons/composition.ts';
import { type Environment, integerEnv, listEnv, requiredEnv } from '../commons/environment.ts';
import { gatewayAccessFromEnvironment } from '../gateway-access/gateway-access.ts';
import {
  DynamoDbAttachmentEvents,
  DynamoDbPendingAttachments,
} from './adapters/dynamodb-attachment-store.ts';
import { GatewayAttachmentDownloads } from './adapters/gateway-attachment-downloads.ts';
import { S3ObjectStorage } from './adapters/s3-object-storage.ts';
import { ContentUrlPolicy, contentHostProblems } from './content-url-policy.ts';
import {
  type AttachmentHandlerDeps,
  createFetchAttachmentsHandler,
  createSweepHandler,
} from './handler.ts';

export interface AttachmentOverrides extends CompositionOverrides {
  /**
   * The gateway client, its per-call time limit and the content URLs it may follow (the local
   * run's simulator origin); the `GATEWAY_*` variables and ATTACHMENT_CONTENT_HOSTS are then not
   * read.
   */
  readonly gateway?: {
    readonly client: Pick<GatewayClient, 'downloadMoFile'>;
    readonly timeoutMs: number;
    readonly contentUrls: ContentUrlPolicy;
  };
  /**
   * The content URLs the gateway client built from the environment may follow, instead of the
   * gateway's hosts and ATTACHMENT_CONTENT_HOSTS (the local run's simulator origin, on http).
   */
  readonly contentUrls?: ContentUrlPolicy;
}

/**
 * The dependencies `fetch-attachments` and `sweep-attachments` share, from the environment (read
 * once, at cold start; a missing variable stops the function): EVENT_TABLE_NAME,
 * STATE_TABLE_NAME, ATTACHMENT_BUCKET, ATTACHMENT_PREFIX (default `inbound/`),
 * EVENT_RETENTION_DAYS (default 35), GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL,
 * GATEWAY_TIMEOUT_MS (default 10 000), GATEWAY_CREDENTIALS_SECRET_ARN and ATTACHMENT_CONTENT_HOSTS
 * (optional). Content URLs are fetched only over https from the gateway's three hosts and the
 * extra hosts of ATTACHMENT_CONTENT_HOSTS.
 */
const composeAttachmentDeps = (
  serviceName: string,
  env: Environment,
  overrides: AttachmentOverrides,
): AttachmentHandlerDeps => {
  const { logger, metrics } = observabilityOf(serviceName, overrides);
  const { documents, s3 } = overrides;
  const stateTable = requiredEnv('STATE_TABLE_NAME', env);
  const gateway = overrides.gateway ?? gatewayOf(env, overrides, logger);
  return {
    downloads: new GatewayAttachmentDownloads(gateway.client, {
      timeoutMs: gateway.timeoutMs,
      contentUrls: gateway.contentUrls,
    }),
    storage: new S3ObjectStorage(requiredEnv('ATTACHMENT_BUCKET', env), { client: s3 }),
    pending: new DynamoDbPendingAttachments(stateTable, documents, (pk, issues) =>
      logger.error('unreadable pending-attachment marker left alone', { pk, issues }),
    ),
    events: new DynamoDbAttachmentEvents(requiredEnv('EVENT_TABLE_NAME', env), documents),
    now: () => new Date(),
    retentionDays: integerEnv('EVENT_RETENTION_DAYS', 35, { min: 8, max: 3_650 }, env),
    // Set but empty is the bucket's root, not the default.
    keyPrefix: keyPrefix(env.ATTACHMENT_PREFIX ?? 'inbound/'),
    logger,
    metrics,
  };
};

/**
 * The deployed gateway client, which only downloads MO files, and the content URLs it may follow:
 * its hosts and the extra ones.
 */
const gatewayOf = (
  env: Environment,
  overrides: AttachmentOverrides,
  logger: AttachmentHandlerDeps['logger'],
) => {
  const { tokens, timeoutMs, hosts } = gatewayAccessFromEnvironment(logger, {
    env,
    documents: overrides.documents,
    secrets: overrides.secrets,
  });
  const client = new GatewayMoFileClient({ hosts, tokens, timeoutMs });
  const contentUrls = ContentUrlPolicy.forGateway(
    [hosts.api, hosts.send, hosts.mnt],
    contentHostsFromEnvironment(env),
  );
  return { client, timeoutMs, contentUrls: overrides.contentUrls ?? contentUrls };
};

/**
 * Composes `fetch-attachments` (the event table's stream → the gateway's files → S3 → "Inbound
 * Attachment Stored" events); the environment it reads is on `composeAttachmentDeps`. The Lambda
 * entry wraps `handler` in middy; the local run feeds it from its stream poller.
 */
export const composeFetchAttachments = (
  env: Environment = process.env,
  overrides: AttachmentOverrides = {},
) => {
  const deps = composeAttachmentDeps('fetch-attachments', env, overrides);
  return {
    logger: deps.logger,
    metrics: deps.metrics,
    deps,
    handler: createFetchAttachmentsHandler(deps),
  };
};

/**
 * Composes `sweep-attachments` (retries the pending attachments that are due, reports those past
 * the gateway's 7-day window as lost): the fetcher's environment plus SWEEP_MARGIN_MS (default
 * 60 000), the time left of an invocation under which no new attachment is started.
 */
export const composeSweepAttachments = (
  env: Environment = process.env,
  overrides: AttachmentOverrides = {},
) => {
  const deps = {
    ...composeAttachmentDeps('sweep-attachments', env, overrides),
    marginMs: integerEnv('SWEEP_MARGIN_MS', 60_000, { min: 1_000, max: 600_000 }, env),
  };
  return { logger: deps.logger, metrics: deps.metrics, deps, handler: createSweepHandler(deps) };
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
export const contentHostsFromEnvironment = (env: Environment = process.env): string[] => {
  const hosts = listEnv('ATTACHMENT_CONTENT_HOSTS', env);
  const problems = contentHostProblems(hosts);
  if (problems.length > 0)
    throw new Error(`environment variable ATTACHMENT_CONTENT_HOSTS: ${problems.join('; ')}`);
  return hosts;
};
