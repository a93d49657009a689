import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DynamoDbTokenStore,
  type TokenStoreLogger,
} from '../../functions/gateway-access/adapters/dynamodb-token-store.ts';
import {
  REAUTH_LEASE,
  type StateTableTokenProvider,
  stateTableTokenProvider,
} from '../../functions/gateway-access/adapters/state-table-token-provider.ts';
import {
  type StoredToken,
  TOKEN_STATE_KEY,
  type TokenStore,
} from '../../functions/gateway-access/token-state.ts';
import { type RefreshResult, refreshToken } from '../../functions/tokens/refresh-use-case.ts';
import { GatewayClient } from '../../gateway/client.ts';
import { GatewayAuthApi } from '../../gateway/token-api.ts';
import { type LocalJsonServices, startLocalJsonServices } from '../../local/aws/json-services.ts';
import { type LocalDynalite, startDynalite } from '../../local/dynalite.ts';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  localDynamoDbClient,
} from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import { formatKst } from '../../protocol/kst.ts';
import { type Simulator, startSimulator } from '../../simulator/index.ts';

const credentials = { apiKey: 'token-key', apiPassword: '토큰-password-1' };
const TABLE = 'state';
const MINUTE = 60_000;

let dynalite: LocalDynalite;
let documents: DynamoDBDocumentClient;
let sim: Simulator;
let auth: GatewayAuthApi;

const silent = { info: () => {}, warn: () => {}, error: () => {} };

const tokenStore = (logger: TokenStoreLogger = silent) =>
  new DynamoDbTokenStore(TABLE, { logger, client: documents });

/** One Lambda container: its own provider (own cache, own lease owner) and gateway client. */
const container = (): { tokens: StateTableTokenProvider; client: GatewayClient } => {
  const tokens = stateTableTokenProvider(TABLE, {
    client: documents,
    auth,
    credentials: () => credentials,
    logger: silent,
    now: () => sim.clock.now(),
  });
  return { tokens, client: new GatewayClient({ hosts: sim.hosts, tokens, timeoutMs: 2_000 }) };
};

/** One scheduled `refresh-token` run. */
const refreshRun = (store: TokenStore = tokenStore()): Promise<RefreshResult> =>
  refreshToken({
    store,
    auth,
    credentials: () => credentials,
    now: () => sim.clock.now(),
    logger: silent,
  });

/** Any bearer call: answers only when the gateway accepted the token. */
const bearerCall = (client: GatewayClient) =>
  client.queryStatus([{ cliKey: 'never-sent', reqDt: formatKst(sim.clock.now(), 'YYYY-MM-DD') }]);

const storedToken = async (): Promise<StoredToken> => {
  const stored = await tokenStore().read();
  if (stored === undefined) throw new Error('expected a stored token');
  return stored;
};

beforeAll(async () => {
  dynalite = await startDynalite();
  const client = localDynamoDbClient(dynalite.endpoint);
  await createTables(client, { eventTable: 'events', stateTable: TABLE });
  documents = DynamoDBDocumentClient.from(client);
  sim = await startSimulator({ ...credentials, clock: 'manual', failureRate: 0 });
  auth = new GatewayAuthApi({ hosts: sim.hosts, timeoutMs: 2_000 });
});

afterAll(async () => {
  await sim.close();
  await dynalite.stop();
});

beforeEach(async () => {
  for (const pk of [TOKEN_STATE_KEY, `LEASE#${REAUTH_LEASE}`]) {
    await documents.send(new DeleteCommand({ TableName: TABLE, Key: { pk } }));
  }
});

describe('refresh-token against the simulator', () => {
  it('authenticates on an empty table, refreshes 10 minutes before expiry, and containers move on to the refreshed token', async () => {
    // Prepare
    const first = await refreshRun();
    const issued = await storedToken();
    const a = container();
    const tokenBefore = await a.tokens.getToken();
    await bearerCall(a.client);
    const before = sim.snapshot();

    // Act
    await sim.advance(49 * MINUTE); // 11 minutes left
    const early = await refreshRun();
    await sim.advance(2 * MINUTE); // 9 minutes left
    const due = await refreshRun();
    const refreshed = await storedToken();
    const stillCached = await a.tokens.getToken();
    await sim.advance(8 * MINUTE + 30_000); // the old token has 30 s left: no longer handed out
    const tokenAfter = await a.tokens.getToken();
    await sim.advance(MINUTE); // the old token has expired
    await bearerCall(a.client);

    // Assess
    expect(first).toMatchObject({ outcome: 'reauthenticated', version: 1 });
    expect(early).toMatchObject({ outcome: 'unchanged', version: 1 });
    expect(due).toMatchObject({ outcome: 'refreshed', version: 2 });
    // JWT `exp` is in whole seconds, so a fresh token has 59 or 60 whole minutes left.
    expect([59, 60]).toContain(first.minutesLeft);
    expect([10, 11]).toContain(early.minutesLeft);
    expect([59, 60]).toContain(due.minutesLeft);
    expect(tokenBefore).toBe(issued.token);
    expect(stillCached).toBe(issued.token);
    expect(tokenAfter).toBe(refreshed.token);
    expect(refreshed.token).not.toBe(issued.token);
    expect(refreshed.refreshToken).toBe(issued.refreshToken);
    const after = sim.snapshot();
    expect(after.refreshes).toBe(before.refreshes + 1);
    expect(after.authentications).toBe(before.authentications);
  });

  it('re-authenticates when the gateway refuses the refresh token (revoked)', async () => {
    await refreshRun();
    const issued = await storedToken();
    sim.revokeTokens();
    await sim.advance(55 * MINUTE);
    const before = sim.snapshot();

    const result = await refreshRun();

    const stored = await storedToken();
    const after = sim.snapshot();
    expect(result).toMatchObject({ outcome: 'reauthenticated', version: 2 });
    expect(result.minutesLeft).toBeGreaterThanOrEqual(59);
    expect(after.refreshes).toBe(before.refreshes); // tried, refused, not counted
    expect(after.authentications).toBe(before.authentications + 1);
    expect(stored.refreshToken).not.toBe(issued.refreshToken);
    await bearerCall(container().client);
  });

  it('re-authenticates instead of refreshing when the refresh token has less than 30 minutes left', async () => {
    await refreshRun();
    await sim.advance(25 * 60 * MINUTE - 29 * MINUTE); // refresh token: 29 minutes left
    const before = sim.snapshot();

    const result = await refreshRun();

    const after = sim.snapshot();
    expect(result.outcome).toBe('reauthenticated');
    expect(after.refreshes).toBe(before.refreshes);
    expect(after.authentications).toBe(before.authentications + 1);
    const issuedAt = Math.floor(sim.clock.now() / 1000) * 1000;
    expect((await storedToken()).refreshExpiresAt).toBe(issuedAt + 25 * 60 * MINUTE);
  });

  it('lets one of two concurrent runs write; the other loses the race and the newer token stays', async () => {
    // Prepare: both runs read version 1 before either writes.
    await refreshRun();
    await sim.advance(55 * MINUTE);
    const store = new RacingStore(tokenStore(), 2);

    // Act
    const results = await Promise.all([refreshRun(store), refreshRun(store)]);

    // Assess
    const outcomes = results.map((r) => r.outcome).sort();
    expect(outcomes).toEqual(['lost-race', 'refreshed']);
    expect(store.writes.map((w) => w.result).sort()).toEqual(['stale', 'written']);
    const winner = store.writes.find((w) => w.result === 'written');
    const loser = store.writes.find((w) => w.result === 'stale');
    const stored = await storedToken();
    expect(stored.token).toBe(winner?.token);
    expect(stored.token).not.toBe(loser?.token);
    expect(stored.version).toBe(2);
    expect(results.map((r) => r.version)).toEqual([2, 2]);
  });
});

describe('StateTableTokenProvider against the simulator', () => {
  it('gives 20 containers starting on an empty table one authentication between them', async () => {
    // Prepare
    const containers = Array.from({ length: 20 }, container);
    const before = sim.snapshot().authentications;

    // Act
    const tokens = await Promise.all(containers.map(({ tokens }) => tokens.getToken()));

    // Assess
    expect(sim.snapshot().authentications).toBe(before + 1);
    expect(new Set(tokens).size).toBe(1);
    const stored = await storedToken();
    expect(tokens[0]).toBe(stored.token);
    expect(stored.version).toBe(1);
    await bearerCall(containers[0]?.client ?? container().client);
  });

  it('recovers from revoked tokens mid-run with one authentication for all containers', async () => {
    // Prepare: three containers working with the shared token.
    await refreshRun();
    const containers = [container(), container(), container()];
    for (const { client } of containers) await bearerCall(client);
    const refused = (await storedToken()).token;
    const before = sim.snapshot().authentications;

    // Act: the gateway revokes everything; each container's next call is refused once.
    sim.revokeTokens();
    await Promise.all(containers.map(({ client }) => bearerCall(client)));

    // Assess: every call succeeded on its one retry, with the one new token.
    expect(sim.snapshot().authentications).toBe(before + 1);
    const stored = await storedToken();
    expect(stored.token).not.toBe(refused);
    expect(stored.version).toBe(2);
    for (const { tokens } of containers) expect(await tokens.getToken()).toBe(stored.token);
  });

  it('re-authenticates when the stored token has expired because refresh-token did not run', async () => {
    await refreshRun();
    const a = container();
    await bearerCall(a.client);
    await sim.advance(61 * MINUTE);
    const before = sim.snapshot().authentications;

    await bearerCall(a.client);

    expect(sim.snapshot().authentications).toBe(before + 1);
    expect((await storedToken()).version).toBe(2);
  });

  it('treats an unreadable token item as absent, says so, and replaces it', async () => {
    await documents.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: TOKEN_STATE_KEY, token: 42, version: 3 },
      }),
    );
    const errors: unknown[] = [];
    const store = tokenStore({ ...silent, error: (...line: unknown[]) => errors.push(line) });

    const read = await store.read();
    const result = await refreshRun(store);

    expect(read).toBeUndefined();
    expect(JSON.stringify(errors)).toContain('unreadable');
    expect(result).toMatchObject({ outcome: 'reauthenticated', version: 1 });
    expect((await storedToken()).version).toBe(1);
  });

  it('never lets a writer with an old version overwrite a newer token', async () => {
    await refreshRun();
    const current = await storedToken();
    const store = tokenStore();

    const older = await store.write({ ...current, token: 'older', version: 5 }, 0);
    const fresh = await store.write({ ...current, token: 'fresh', version: 2 }, undefined);
    const next = await store.write({ ...current, token: 'next', version: 2 }, 1);

    expect([older, fresh, next]).toEqual(['stale', 'stale', 'written']);
    expect((await storedToken()).token).toBe('next');
  });
});

describe('the refresh-token Lambda', () => {
  let realSim: Simulator;
  const lambdaContext: Context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'refresh-token',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:ap-northeast-2:123456789012:function:refresh-token',
    memoryLimitInMB: '256',
    awsRequestId: 'request-1',
    logGroupName: '/aws/lambda/refresh-token',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 30_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };

  let services: LocalJsonServices;
  const secretArn =
    'arn:aws:secretsmanager:ap-northeast-2:000000000000:secret:gateway-credentials-AbCdEf';

  beforeAll(async () => {
    realSim = await startSimulator({ ...credentials, failureRate: 0 });
    // The credentials in a Secrets Manager the entry's own client reaches, as deployed.
    services = await startLocalJsonServices();
    services.addSecret({
      arn: secretArn,
      name: 'gateway-credentials',
      value: JSON.stringify(credentials),
    });
    vi.stubEnv('STATE_TABLE_NAME', TABLE);
    vi.stubEnv('GATEWAY_API_URL', realSim.hosts.api);
    vi.stubEnv('GATEWAY_SEND_URL', realSim.hosts.send);
    vi.stubEnv('GATEWAY_MNT_URL', realSim.hosts.mnt);
    vi.stubEnv('GATEWAY_CREDENTIALS_SECRET_ARN', secretArn);
    vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', services.url);
    vi.stubEnv('GATEWAY_TIMEOUT_MS', '2000');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'msgbridge-test');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynalite.endpoint);
    vi.stubEnv('AWS_REGION', LOCAL_REGION);
    vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_CREDENTIALS.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_CREDENTIALS.secretAccessKey);
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await realSim.close();
    await services.close();
  });

  /** Runs the handler and returns its outcome and the EMF metric values it printed. */
  const invoke = async () => {
    const { handler } = await import('../../functions/refresh-token.ts');
    const lines: string[] = [];
    const capture = (chunk: string | Uint8Array) => {
      lines.push(...String(chunk).split('\n'));
      return true;
    };
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const outcome = await handler({}, lambdaContext).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const metrics: Record<string, unknown> = {};
      for (const line of lines.filter((l) => l.includes('"_aws"'))) {
        Object.assign(metrics, JSON.parse(line));
      }
      return { outcome, metrics, output: lines.join('\n') };
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
  };

  it('counts a failed run, and rethrows so the schedule retries', async () => {
    realSim.setFaults({ errorRate: 1 });

    const { outcome, metrics } = await invoke();

    realSim.setFaults({ errorRate: 0 });
    expect(outcome).toMatchObject({ error: { name: 'GatewayRetryableError' } });
    expect(metrics).toMatchObject({ TokenRefreshFailures: 1 });
    expect(metrics).not.toHaveProperty('TokenMinutesLeft');
  });

  it('stores a token, reports the minutes left, and logs no token', async () => {
    const { outcome, metrics, output } = await invoke();

    const stored = await storedToken();
    expect(outcome).toMatchObject({ value: { outcome: 'reauthenticated' } });
    expect(metrics).toMatchObject({ TokenRefreshFailures: 0 });
    expect(metrics.TokenMinutesLeft).toBeGreaterThanOrEqual(59);
    expect(metrics.TokenMinutesLeft).toBeLessThanOrEqual(60);
    expect(output).toContain('gateway token checked');
    expect(output).not.toContain(stored.token);
    expect(output).not.toContain(stored.refreshToken);
  });
});

/**
 * Holds every one of the first `parties` reads until all of them have read, so the runs that
 * share it are certain to race on the same version.
 */
class RacingStore implements TokenStore {
  readonly writes: Array<{ token: string; result: 'written' | 'stale' }> = [];
  private arrived = 0;
  private open: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  constructor(
    private readonly inner: TokenStore,
    private readonly parties: number,
  ) {}

  async read(): Promise<StoredToken | undefined> {
    const value = await this.inner.read();
    if (this.arrived < this.parties) {
      this.arrived += 1;
      if (this.arrived === this.parties) this.open();
      await this.gate;
    }
    return value;
  }

  async write(next: StoredToken, expected: number | undefined): Promise<'written' | 'stale'> {
    const result = await this.inner.write(next, expected);
    this.writes.push({ token: next.token, result });
    return result;
  }
}
