/**
 * The chaos run's own parts: the fault plan is a function of the seed, the injectors do what
 * they claim (a lost response after a write that happened, a PutEvents call killed after it
 * returned),
 * and the simulator's HTTP 200 failures and acceptance ledger work.
 */

import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { describe, expect, it } from 'vitest';
import {
  FaultPlan,
  faultMixFor,
  injectEventBridgeFaults,
  injectSqsFaults,
  killableLambda,
  LambdaKilledError,
} from '../../chaos/faults.ts';
import { buildWorkload } from '../../chaos/workload.ts';
import { EventBridgeBus } from '../../functions/publishing/adapters/eventbridge-bus.ts';
import type { BusEntry, BusEntryResult, EventBus } from '../../functions/publishing/ports.ts';
import { startLocalJsonServices } from '../../local/aws/json-services.ts';
import { LOCAL_REGION, localClientConfig } from '../../local/dynamodb-local.ts';
import { startSimulator } from '../../simulator/index.ts';

const entry = (id: string): BusEntry => ({
  Source: 'msgbridge',
  DetailType: 'Test Happened',
  Detail: JSON.stringify({ metadata: { id }, data: {} }),
  Time: new Date(0),
});

class RecordingBus implements EventBus {
  readonly put: string[] = [];
  async putEvents(entries: readonly BusEntry[]): Promise<readonly BusEntryResult[]> {
    for (const e of entries) this.put.push(JSON.parse(e.Detail).metadata.id);
    return entries.map(() => ({ ok: true }));
  }
}

const alwaysFaulty = (
  kind: 'bus.killedAfterPut' | 'bus.partialFailure' | 'sqs.lostDelete',
  seed = 1,
  rate = 1,
) => {
  const mix = faultMixFor(seed);
  const rates = Object.fromEntries(Object.keys(mix.rates).map((k) => [k, 0]));
  const plan = new FaultPlan(seed, {
    ...mix,
    rates: { ...(rates as typeof mix.rates), [kind]: rate },
  });
  plan.armed = true;
  return plan;
};

describe('the fault plan', () => {
  it('draws the same decisions and the same workload for the same seed', () => {
    const decisions = (seed: number) => {
      const plan = new FaultPlan(seed, faultMixFor(seed));
      plan.armed = true;
      return Array.from({ length: 500 }, () => plan.draw('sqs.lostDelete'));
    };
    expect(decisions(7)).toEqual(decisions(7));
    expect(decisions(7)).not.toEqual(decisions(8));
    expect(faultMixFor(7)).toEqual(faultMixFor(7));
    const now = Date.parse('2026-11-24T00:00:00Z');
    expect(JSON.stringify(buildWorkload(7, 50, now))).toBe(
      JSON.stringify(buildWorkload(7, 50, now)),
    );
  });

  it('injects nothing while disarmed', () => {
    const plan = alwaysFaulty('bus.partialFailure');
    plan.armed = false;
    expect(plan.draw('bus.partialFailure')).toBe(false);
    expect(plan.injected).toEqual({});
  });
});

describe('EventBridge faults on the publisher’s client', () => {
  /** The EventBridge client of a function, against the local EventBridge endpoint and its bus. */
  const faultyClient = async (plan: FaultPlan) => {
    const inner = new RecordingBus();
    const services = await startLocalJsonServices();
    services.addBus('bus', 'arn:aws:events:ap-northeast-2:000000000000:event-bus/bus', inner);
    const client = new EventBridgeClient(localClientConfig(services.url));
    const unavoidable = new Set<string>();
    injectEventBridgeFaults(client, plan, unavoidable);
    const bus = new EventBridgeBus('bus', client);
    return { inner, bus, unavoidable, close: () => services.close() };
  };

  it('kills the invocation after PutEvents returned and records those events as the unavoidable case', async () => {
    const { inner, bus, unavoidable, close } = await faultyClient(
      alwaysFaulty('bus.killedAfterPut'),
    );
    const handler = killableLambda('publish-events', async (ids: string[]) => {
      await bus.putEvents(ids.map(entry));
      return 'returned';
    });

    await expect(handler(['a', 'b'])).rejects.toBeInstanceOf(LambdaKilledError);

    expect(inner.put).toEqual(['a', 'b']);
    expect([...unavoidable]).toEqual(['a', 'b']);
    await close();
  });

  it('counts the events of earlier calls as unavoidable too when the kill comes mid-batch', async () => {
    const plan = alwaysFaulty('bus.killedAfterPut');
    let calls = 0;
    const secondCallOnly = Object.assign(Object.create(Object.getPrototypeOf(plan)), plan, {
      draw: (kind: string) => kind === 'bus.killedAfterPut' && ++calls === 2,
    }) as FaultPlan;
    const { bus, unavoidable, close } = await faultyClient(secondCallOnly);
    const handler = killableLambda('publish-events', async (ids: string[]) => {
      await bus.putEvents(ids.slice(0, 2).map(entry));
      await bus.putEvents(ids.slice(2).map(entry));
      return 'returned';
    });

    await expect(handler(['a', 'b', 'c'])).rejects.toBeInstanceOf(LambdaKilledError);

    expect([...unavoidable].sort()).toEqual(['a', 'b', 'c']);
    await close();
  });

  it('fails some entries of a call and puts only the others', async () => {
    const { inner, bus, close } = await faultyClient(alwaysFaulty('bus.partialFailure'));
    const ids = Array.from({ length: 10 }, (_, i) => `e${i}`);

    const results = await bus.putEvents(ids.map(entry));

    const failed = ids.filter((_, i) => !results[i]?.ok);
    expect(failed.length).toBeGreaterThan(0);
    expect(inner.put).toEqual(ids.filter((id) => !failed.includes(id)));
    await close();
  });
});

describe('SQS faults on an event source’s client', () => {
  it('loses the deletes of some entries of a batch: answered as deleted, they stay on the queue', async () => {
    const fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
    const queue = fauxqs.createQueue('lost-deletes', { attributes: { VisibilityTimeout: '1' } });
    const sqs = new SQSClient(localClientConfig(fauxqs.address));
    const plan = alwaysFaulty('sqs.lostDelete', 1, 0.5);
    injectSqsFaults(sqs, plan);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.queueUrl,
        Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: `m${i}` })),
      }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, MaxNumberOfMessages: 10 }),
    );
    const messages = received.Messages ?? [];

    const answer = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queue.queueUrl,
        Entries: messages.map((message, i) => ({
          Id: String(i),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );

    const lost = plan.injected['sqs.lostDelete'] ?? 0;
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThan(messages.length);
    expect(answer.Successful).toHaveLength(messages.length);
    expect(answer.Failed ?? []).toEqual([]);
    const state = fauxqs.inspectQueue('lost-deletes');
    const left = (state?.messages.ready.length ?? 0) + (state?.messages.inflight.length ?? 0);
    expect(left).toBe(lost);
    await fauxqs.stop();
  });
});

describe('the simulator under chaos', () => {
  it('answers HTTP 200 with 29018, 29019 or 29039 at http200ErrorRate, and records each acceptance', async () => {
    const sim = await startSimulator({
      apiKey: 'k',
      apiPassword: 'p',
      port: 0,
      faults: { http200ErrorRate: 1 },
    });
    try {
      const response = await fetch(`${sim.url}/msg/v1.2/report`);
      const body = (await response.json()) as { code: string };
      expect(response.status).toBe(200);
      expect(['29018', '29019', '29039']).toContain(body.code);
      expect(sim.acceptances()).toEqual([]);
      expect(sim.snapshot().quotaRefusals).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
