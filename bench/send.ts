/**
 * Scenario `send`: the send pipeline against the simulator with a TPS quota and dynalite.
 *
 * 4 concurrent senders work through 10-recipient SMS messages for about 8 s. Figures: the achieved
 * rate as a ratio of the quota (over the whole seconds of the run, and the highest single second),
 * `29002` answers, gateway calls per recipient, and writes per recipient to the event and state
 * tables (refused conditional writes counted apart: they still consume write capacity).
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { smsBody } from '../fixtures/send-bodies.ts';
import { DynamoDbSendStore } from '../functions/send-records/adapters/dynamodb-send-store.ts';
import type { AwaitingReports } from '../functions/send-records/ports.ts';
import { DynamoDbRateLimiter } from '../functions/sending/adapters/dynamodb-rate-limiter.ts';
import { GatewaySender } from '../functions/sending/adapters/gateway-sender.ts';
import type { SendGateway } from '../functions/sending/ports.ts';
import { sendQueuedMessage } from '../functions/sending/send-use-case.ts';
import { SessionTokenProvider } from '../gateway/bearer/session-token-provider.ts';
import { GatewayClient } from '../gateway/client.ts';
import { GatewayAuthApi } from '../gateway/token-api.ts';
import { startDynalite } from '../local/dynalite.ts';
import { localDynamoDbClient } from '../local/dynamodb-local.ts';
import { createTables } from '../local/tables.ts';
import { startSimulator } from '../simulator/index.ts';
import { figuresTable, type ScenarioResult } from './report.ts';

const QUOTA = 100;
const SENDERS = 4;
const MESSAGES = 80;

const sendFigures = async () => {
  const dynalite = await startDynalite();
  const sim = await startSimulator({
    apiKey: 'bench',
    apiPassword: 'bench-password',
    tpsQuota: QUOTA,
    reportDelayMs: 3_600_000,
  });
  try {
    const client = localDynamoDbClient(dynalite.endpoint);
    await createTables(client, { eventTable: 'events', stateTable: 'state' });
    const writes = { events: { attempts: 0, done: 0 }, state: { attempts: 0, done: 0 } };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'PutItemCommand' && context.commandName !== 'UpdateItemCommand')
          return next(args);
        const counter =
          (args.input as { TableName?: string }).TableName === 'state'
            ? writes.state
            : writes.events;
        counter.attempts += 1;
        const result = await next(args);
        counter.done += 1;
        return result;
      },
      { step: 'initialize', name: 'countWrites' },
    );
    const documents = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const credentials = { apiKey: 'bench', apiPassword: 'bench-password' };
    const auth = new GatewayAuthApi({ hosts: sim.hosts });
    const inner = new GatewaySender(
      new GatewayClient({
        hosts: sim.hosts,
        tokens: new SessionTokenProvider({ auth, credentials: () => credentials }),
      }),
    );
    const perSecond = new Map<number, number>();
    let rateLimited = 0;
    let gatewayCalls = 0;
    const gateway: SendGateway = {
      // The options carry every request's quota reservation (beforeSend): pass them on, and
      // count the recipients in the second the (last) request went out, after its reservation.
      send: async (message, options) => {
        let second = Math.floor(Date.now() / 1000);
        gatewayCalls += 1;
        try {
          const outcome = await inner.send(message, {
            ...options,
            beforeSend: async () => {
              await options?.beforeSend?.();
              second = Math.floor(Date.now() / 1000);
            },
          });
          const count =
            outcome.kind === 'immediate'
              ? outcome.results.filter((r) => r.code === '10000').length
              : 0;
          perSecond.set(second, (perSecond.get(second) ?? 0) + count);
          return outcome;
        } catch (error) {
          if ((error as Error).name === 'GatewayRateLimitedError') rateLimited += 1;
          throw error;
        }
      },
    };
    const store = new DynamoDbSendStore('events', 35, documents);
    // The report-check queue is not part of this scenario (no SQS): its checks are counted.
    let reportChecks = 0;
    const awaiting: AwaitingReports = {
      expect: async () => {
        reportChecks += 1;
      },
    };
    const messages = Array.from({ length: MESSAGES }, () =>
      JSON.stringify({ channel: 'sms', ...smsBody(10) }),
    );
    let next = 0;
    let retries = 0;
    const sender = async (id: number) => {
      const rateLimiter = new DynamoDbRateLimiter(
        'state',
        { quota: QUOTA, guardMs: 100 },
        documents,
      );
      while (next < messages.length) {
        const index = next++;
        const body = messages[index] ?? '';
        for (let receiveCount = 1; receiveCount <= 6; receiveCount++) {
          const result = await sendQueuedMessage(
            {
              body,
              messageId: `bench-${index}`,
              sentAt: new Date(),
              receiveCount,
              maxReceiveCount: 6,
            },
            {
              store,
              awaiting,
              acceptedEvents: false,
              gateway,
              rateLimiter,
              now: () => new Date(),
              retentionDays: 35,
              claimLeaseMs: 30_000,
              deadline: Date.now() + 20_000,
            },
          );
          if (result.kind !== 'retry') break;
          retries += 1;
        }
      }
      return id;
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: SENDERS }, (_, id) => sender(id)));
    const elapsedMs = Date.now() - started;

    const seconds = [...perSecond.keys()].sort((a, b) => a - b);
    // The first and last seconds are partial; the rate is judged over the whole ones between.
    const whole = seconds.slice(1, -1);
    const wholeRecipients = whole.reduce((sum, second) => sum + (perSecond.get(second) ?? 0), 0);
    const recipients = [...perSecond.values()].reduce((sum, n) => sum + n, 0);
    return {
      quota: QUOTA,
      senders: SENDERS,
      recipientsAccepted: recipients,
      elapsedMs,
      perSecondSeries: seconds.map((second) => perSecond.get(second) ?? 0),
      achievedRateRatio: Number((wholeRecipients / (QUOTA * whole.length)).toFixed(3)),
      highestSecondRatio: Math.max(
        ...seconds.map((second) => (perSecond.get(second) ?? 0) / QUOTA),
      ),
      rateLimitedAnswers: rateLimited,
      retries,
      gatewayCallsPerRecipient: Number((gatewayCalls / recipients).toFixed(3)),
      eventTableWritesPerRecipient: Number((writes.events.attempts / recipients).toFixed(3)),
      reportChecksPerRecipient: Number((reportChecks / recipients).toFixed(3)),
      stateTableWritesPerRecipient: Number((writes.state.done / recipients).toFixed(3)),
      stateTableRefusedWritesPerRecipient: Number(
        ((writes.state.attempts - writes.state.done) / recipients).toFixed(3),
      ),
      simulatorAccepted: sim.snapshot().recipientsAccepted,
    };
  } finally {
    await sim.close();
    await dynalite.stop();
  }
};

export const runSend = async (): Promise<ScenarioResult> => {
  const figures = await sendFigures();
  return {
    figures,
    tables: [
      figuresTable(
        `send: ${SENDERS} concurrent senders, ${MESSAGES} SMS messages of 10 recipients, quota ${QUOTA} recipients/s (simulator, dynalite)`,
        [
          ['achieved rate / quota (whole seconds)', figures.achievedRateRatio, '≥ 0.95'],
          ['highest single second / quota', figures.highestSecondRatio, '≤ 1.0'],
          ['recipients accepted per second', figures.perSecondSeries.join(' ')],
          ['gateway calls per recipient', figures.gatewayCallsPerRecipient, '0.1'],
          ['rate-limited (29002) answers', figures.rateLimitedAnswers],
          ['retries', figures.retries],
          ['event-table writes per recipient', figures.eventTableWritesPerRecipient],
          ['report checks queued per recipient', figures.reportChecksPerRecipient],
          ['state-table writes per recipient', figures.stateTableWritesPerRecipient],
          [
            'state-table refused conditional writes per recipient',
            figures.stateTableRefusedWritesPerRecipient,
          ],
        ],
      ),
    ],
  };
};
