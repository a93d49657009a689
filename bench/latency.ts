/**
 * Scenario `latency`: how long a delivery report takes from the webhook to the bus on the local
 * run (the synthesized stack on DynamoDB Local, its stream and the publisher as deployed), at 1
 * post a second and at 50 posts a second, one report a post. A post's clock starts when it is
 * sent; its event's when the bus has it (the bus is watched every 5 ms). And how long a send takes
 * from the producer's enqueue to the gateway's answer accepting it, at 1 and 50 messages a second
 * (1-recipient SMS): its clock starts when `enqueueSend` has the message on the queue, and stops
 * when send-messages has the gateway's answer (the simulator accepts every recipient here).
 * Figures are p50, p95 and p99 in milliseconds, measured on this machine: the local pollers stand
 * in for Lambda's, so they describe the bridge's own work and the pollers' cadence, not AWS's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportItem } from '../fixtures/gateway-bodies.ts';
import { smsBody } from '../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { recipientsOf } from '../functions/send-contract/queue-message-recipients.ts';
import { startLocalBridge } from '../local/bridge.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { benchBridgeOptions } from './local-bridge.ts';
import { figuresTable, round, type ScenarioResult } from './report.ts';

/** A row of a latency table: the rate, how many went and arrived, and the percentiles. */
const latencyRow = (
  perSecond: number,
  went: number,
  arrived: number,
  times: { readonly p50Ms: number; readonly p95Ms: number; readonly p99Ms: number },
) => [perSecond, went, arrived, times.p50Ms, times.p95Ms, times.p99Ms];

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
};

/** p50, p95 and p99 of `latencies`, whole milliseconds. */
const percentiles = (latencies: readonly number[]) => ({
  p50Ms: round(percentile(latencies, 50), 0),
  p95Ms: round(percentile(latencies, 95), 0),
  p99Ms: round(percentile(latencies, 99), 0),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const runLatency = async (): Promise<ScenarioResult> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-latency-'));
  // When send-messages had the gateway's answer for each cliKey.
  const answered = new Map<string, number>();
  const bridge = await startLocalBridge({
    instrument: {
      gateway: (gateway) => ({
        send: async (message, options) => {
          const outcome = await gateway.send(message, options);
          const at = performance.now();
          for (const { cliKey } of recipientsOf(message))
            if (!answered.has(cliKey)) answered.set(cliKey, at);
          return outcome;
        },
      }),
    },
    ...benchBridgeOptions(dataDir),
    tpsQuota: 50,
  });
  const posted = new Map<string, number>();
  const published = new Map<string, number>();
  let seen = 0;
  const watcher = setInterval(() => {
    const entries = bridge.bus.entries;
    for (; seen < entries.length; seen += 1) {
      const entry = entries[seen];
      if (entry?.DetailType !== 'Delivery Report Received') continue;
      const msgKey = (JSON.parse(entry.Detail) as { data: { msgKey: string } }).data.msgKey;
      if (!published.has(msgKey)) published.set(msgKey, performance.now());
    }
  }, 5);
  try {
    const phase = async (name: string, perSecond: number, posts: number) => {
      const keys: string[] = [];
      const sends: Promise<unknown>[] = [];
      const started = performance.now();
      for (let i = 0; i < posts; i += 1) {
        const msgKey = `LAT-${name}-${i}`;
        keys.push(msgKey);
        const due = started + (i * 1000) / perSecond;
        await sleep(Math.max(0, due - performance.now()));
        posted.set(msgKey, performance.now());
        sends.push(
          fetch(bridge.urls.reportWebhook, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ rptCnt: 1, rptLst: [reportItem(i, { msgKey })] }),
          }).then((answer) => answer.text()),
        );
      }
      await Promise.all(sends);
      for (let waited = 0; keys.some((key) => !published.has(key)) && waited < 60_000; waited += 50)
        await sleep(50);
      const latencies = keys.flatMap((key) => {
        const at = published.get(key);
        const from = posted.get(key);
        return at === undefined || from === undefined ? [] : [at - from];
      });
      return {
        posts,
        perSecond,
        published: latencies.length,
        ...percentiles(latencies),
      };
    };
    const slow = await phase('one', 1, 20);
    const busy = await phase('fifty', 50, 500);

    /** `count` 1-recipient SMS enqueued at `perSecond`, each timed to the gateway's answer. */
    const sendPhase = async (perSecond: number, count: number) => {
      const enqueued = new Map<string, number>();
      const started = performance.now();
      for (let i = 0; i < count; i += 1) {
        const body = smsBody(1);
        const cliKey = body.recvInfoLst[0]?.cliKey ?? '';
        const message = { channel: 'sms', ...body } as SendMessageInput;
        const due = started + (i * 1000) / perSecond;
        await sleep(Math.max(0, due - performance.now()));
        const queued = await enqueueSend(bridge.sqs, bridge.urls.sendQueue, [message]);
        if (queued.queued.length !== 1) throw new Error('latency: enqueue refused');
        enqueued.set(cliKey, performance.now());
      }
      for (
        let waited = 0;
        [...enqueued.keys()].some((key) => !answered.has(key)) && waited < 60_000;
        waited += 50
      )
        await sleep(50);
      const latencies = [...enqueued].flatMap(([key, from]) => {
        const at = answered.get(key);
        return at === undefined ? [] : [at - from];
      });
      return {
        messages: count,
        perSecond,
        answered: latencies.length,
        ...percentiles(latencies),
      };
    };
    const sendSlow = await sendPhase(1, 20);
    const sendBusy = await sendPhase(50, 500);
    const figures = {
      webhookToEvent: { at1PerSecond: slow, at50PerSecond: busy },
      enqueueToGatewayAccepted: { at1PerSecond: sendSlow, at50PerSecond: sendBusy },
    };
    return {
      figures,
      tables: [
        {
          title: 'webhook → event on the bus, local run (ms)',
          columns: ['posts/s', 'posts', 'published', 'p50', 'p95', 'p99'],
          rows: [slow, busy].map((r) => latencyRow(r.perSecond, r.posts, r.published, r)),
        },
        {
          title: 'enqueue → gateway accepted, 1-recipient SMS, local run (ms)',
          columns: ['messages/s', 'messages', 'answered', 'p50', 'p95', 'p99'],
          rows: [sendSlow, sendBusy].map((r) => latencyRow(r.perSecond, r.messages, r.answered, r)),
        },
        figuresTable('latency goals', [
          ['every post published, at 1/s', `${slow.published}/${slow.posts}`, 'all'],
          ['every post published, at 50/s', `${busy.published}/${busy.posts}`, 'all'],
          ['every send answered, at 1/s', `${sendSlow.answered}/${sendSlow.messages}`, 'all'],
          ['every send answered, at 50/s', `${sendBusy.answered}/${sendBusy.messages}`, 'all'],
        ]),
      ],
    };
  } finally {
    clearInterval(watcher);
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
