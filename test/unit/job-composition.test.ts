import { describe, expect, it } from 'vitest';
import { S3ObjectStorage } from '../../functions/attachments/adapters/s3-object-storage.ts';
import {
  composeFetchAttachments,
  composeSweepAttachments,
} from '../../functions/attachments/compose.ts';
import {
  booleanEnv,
  type Environment,
  enumEnv,
  listEnv,
  optionalEnv,
} from '../../functions/commons/environment.ts';
import { DynamoDbTokenStore } from '../../functions/gateway-access/adapters/dynamodb-token-store.ts';
import { composePollReports } from '../../functions/polling/compose.ts';
import { composeReconcileStatus } from '../../functions/reconcile/compose.ts';
import { DynamoDbSendStore } from '../../functions/send-records/adapters/dynamodb-send-store.ts';
import { SqsReportChecks } from '../../functions/send-records/adapters/sqs-report-checks.ts';
import { composeExportStatistics } from '../../functions/statistics/compose.ts';
import { S3StatisticsSink } from '../../functions/statistics/s3-statistics-sink.ts';
import { composeRefreshToken } from '../../functions/tokens/compose.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayStatisticsClient } from '../../gateway/statistics-client.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { gatewayCredentialsHolding } from '../support/secrets-client.ts';

/**
 * Each scheduled Lambda's composition, from an environment object of the test's own (none of
 * these variables is in `process.env`): what the stack sets is read from it, and a missing
 * variable stops the composition with its name, as a cold start would.
 */
const CREDENTIALS = gatewayCredentialsHolding('bridge', 'secret-password');

const ENV: Environment = {
  GATEWAY_API_URL: 'https://api.gw.example',
  GATEWAY_SEND_URL: 'https://send.gw.example',
  GATEWAY_MNT_URL: 'https://mnt.gw.example',
  GATEWAY_TIMEOUT_MS: '20000',
  GATEWAY_CREDENTIALS_SECRET_ARN: CREDENTIALS.arn,
  EVENT_TABLE_NAME: 'events',
  STATE_TABLE_NAME: 'state',
  PAYLOAD_BUCKET: 'payloads',
  EVENT_RETENTION_DAYS: '40',
  ATTACHMENT_BUCKET: 'attachments',
  ATTACHMENT_PREFIX: 'files',
  SWEEP_MARGIN_MS: '2000',
  QUARANTINE_BUCKET: 'quarantine',
  REPORT_DELIVERY: 'polling',
  MO_POLLING: 'on',
  RECONCILE_AFTER_MINUTES: '45',
  REPORT_CHECK_QUEUE_URL: 'http://queue.example/report-checks',
  STATISTICS_SETTINGS: '{}',
  STATISTICS_BUCKET: 'statistics',
};

const without = (name: string): Environment => ({ ...ENV, [name]: undefined });

/** A variable left out (its name), or set to a value it cannot take ([name, value]). */
type Problem = string | readonly [name: string, value: string];

/** Expects `compose` to stop, naming the variable, for each problem with the environment. */
const expectEachNamed = (compose: (env: Environment) => unknown, problems: readonly Problem[]) => {
  for (const problem of problems) {
    const [name, env] =
      typeof problem === 'string'
        ? [problem, without(problem)]
        : [problem[0], { ...ENV, [problem[0]]: problem[1] }];
    expect(() => compose(env)).toThrow(name);
  }
};

describe('the compositions read the environment they are given', () => {
  it('does not find these variables in process.env (the fake environment is all they see)', () => {
    expect(process.env.STATE_TABLE_NAME).toBeUndefined();
    expect(process.env.GATEWAY_API_URL).toBeUndefined();
  });
});

describe('composeRefreshToken', () => {
  it('builds the token store, the authentication API and the credentials', async () => {
    const { deps } = composeRefreshToken(ENV, { secrets: CREDENTIALS.secrets });
    expect(deps.store).toBeInstanceOf(DynamoDbTokenStore);
    expect(deps.auth).toBeInstanceOf(GatewayAuthApi);
    await expect(deps.credentials()).resolves.toEqual({
      apiKey: 'bridge',
      apiPassword: 'secret-password',
    });
  });

  it('names a missing variable', () => {
    expectEachNamed(composeRefreshToken, ['STATE_TABLE_NAME', 'GATEWAY_MNT_URL']);
  });
});

describe('composeFetchAttachments', () => {
  it('builds the fetcher from the bucket, prefix and retention it is given', () => {
    const { deps, handler } = composeFetchAttachments(ENV);
    expect(deps.storage).toBeInstanceOf(S3ObjectStorage);
    expect((deps.storage as S3ObjectStorage).bucket).toBe('attachments');
    expect(deps.keyPrefix).toBe('files/');
    expect(deps.retentionDays).toBe(40);
    expect(handler).toBeTypeOf('function');
  });

  it('names a missing variable', () => {
    expectEachNamed(composeFetchAttachments, ['ATTACHMENT_BUCKET', 'EVENT_TABLE_NAME']);
  });
});

describe('composeSweepAttachments', () => {
  it("adds the sweep's margin to the fetcher's dependencies", () => {
    const { deps, handler } = composeSweepAttachments(ENV);
    expect(deps.marginMs).toBe(2_000);
    expect(deps.keyPrefix).toBe('files/');
    expect(handler).toBeTypeOf('function');
    expect(composeSweepAttachments(without('SWEEP_MARGIN_MS')).deps.marginMs).toBe(60_000);
  });

  it('names a missing or malformed variable', () => {
    expectEachNamed(composeSweepAttachments, ['STATE_TABLE_NAME', ['SWEEP_MARGIN_MS', '10']]);
  });
});

describe('composePollReports', () => {
  it('reads the delivery mode and derives the timing from the gateway time limit', () => {
    const { config, deps } = composePollReports(ENV);
    expect(config).toEqual({ reportDelivery: 'polling', moPolling: true });
    expect(deps.gateway).toBeInstanceOf(GatewayClient);
    expect(deps.timing).toMatchObject({ pageBudgetMs: 45_000, confirmMarginMs: 25_000 });
    expect(deps.receive.retentionDays).toBe(40);
    expect(composePollReports(without('MO_POLLING')).config.moPolling).toBe(false);
  });

  it('names a missing or malformed variable', () => {
    expectEachNamed(composePollReports, [
      'REPORT_DELIVERY',
      ['MO_POLLING', 'yes'],
      'QUARANTINE_BUCKET',
      'PAYLOAD_BUCKET',
      // A page must fit the 120 s confirmation window: 30 s per call at most.
      ['GATEWAY_TIMEOUT_MS', '40000'],
    ]);
  });
});

describe('composeReconcileStatus', () => {
  it('reads the settings and the batch budget', () => {
    const { deps, batchBudgetMs } = composeReconcileStatus(ENV);
    expect(deps.settings).toMatchObject({ afterMinutes: 45, horizonHours: 96 });
    expect(deps.gateway).toBeInstanceOf(GatewayClient);
    expect(deps.receive.retentionDays).toBe(40);
    expect(batchBudgetMs).toBe(45_000);
    // Found acceptances are queued on the report-check queue, where checks are put back too.
    expect(deps.awaiting).toBeInstanceOf(SqsReportChecks);
  });

  it('names a missing or malformed variable', () => {
    expectEachNamed(composeReconcileStatus, [
      'EVENT_TABLE_NAME',
      'STATE_TABLE_NAME',
      'REPORT_CHECK_QUEUE_URL',
      ['RECONCILE_AFTER_MINUTES', 'soon'],
    ]);
  });

  it('stores found acceptances without their event when ACCEPTED_EVENTS is off (the default), as the sender does', () => {
    expect(composeReconcileStatus(ENV).deps.unpublishedAcceptances).toBeInstanceOf(
      DynamoDbSendStore,
    );
    expect(
      composeReconcileStatus({ ...ENV, ACCEPTED_EVENTS: 'on' }).deps.unpublishedAcceptances,
    ).toBeUndefined();
    expect(
      composeReconcileStatus({ ...ENV, ACCEPTED_EVENTS: 'off' }).deps.unpublishedAcceptances,
    ).toBeInstanceOf(DynamoDbSendStore);
    expect(() => composeReconcileStatus({ ...ENV, ACCEPTED_EVENTS: 'false' })).toThrow(
      'ACCEPTED_EVENTS',
    );
  });
});

describe('composeExportStatistics', () => {
  it('builds the gateways, the store and the JSON-lines sink', () => {
    const { deps } = composeExportStatistics(ENV);
    // One client of the statistics calls for both, not the clients of every endpoint.
    expect(deps.trackingUrls).toBeInstanceOf(GatewayStatisticsClient);
    expect(deps.messenger).toBe(deps.trackingUrls);
    expect(deps.sink).toBeInstanceOf(S3StatisticsSink);
    expect((deps.sink as S3StatisticsSink).bucket).toBe('statistics');
    expect(deps.retentionDays).toBe(40);
    expect(composeExportStatistics(without('STATISTICS_BUCKET')).deps.sink).toBeUndefined();
  });

  it('names a missing or malformed variable', () => {
    expectEachNamed(composeExportStatistics, [
      'STATISTICS_SETTINGS',
      ['STATISTICS_SETTINGS', '{'],
      'EVENT_TABLE_NAME',
    ]);
  });
});

describe('the environment readers', () => {
  it('reads an optional variable, blank as unset', () => {
    expect(optionalEnv('A', { A: 'x' })).toBe('x');
    expect(optionalEnv('A', { A: '  ' })).toBeUndefined();
    expect(optionalEnv('A', {})).toBeUndefined();
  });

  it('reads one of a set of values exactly, with or without a default', () => {
    const modes = ['webhook', 'polling'] as const;
    expect(enumEnv('MODE', modes, undefined, { MODE: 'polling' })).toBe('polling');
    expect(enumEnv('MODE', modes, 'webhook', {})).toBe('webhook');
    expect(() => enumEnv('MODE', modes, undefined, {})).toThrow(
      'environment variable MODE is required',
    );
    expect(() => enumEnv('MODE', modes, undefined, { MODE: 'Polling' })).toThrow(
      'environment variable MODE must be one of webhook, polling, got "Polling"',
    );
  });

  it('reads an on/off switch', () => {
    expect(booleanEnv('S', false, { S: 'on' })).toBe(true);
    expect(booleanEnv('S', true, { S: 'off' })).toBe(false);
    expect(booleanEnv('S', true, {})).toBe(true);
    expect(() => booleanEnv('S', false, { S: 'true' })).toThrow('environment variable S');
  });

  it('reads a comma-separated list', () => {
    expect(listEnv('L', { L: ' a, b ,,c ' })).toEqual(['a', 'b', 'c']);
    expect(listEnv('L', {})).toEqual([]);
  });
});
