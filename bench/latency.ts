/**
 * Scenario `latency`: how long a delivery report takes from the webhook to the bus on the local
 * run (the synthesized stack on DynamoDB Local, its stream and the publisher as deployed), at 1
 * post a second and at 50 posts a second, one report a post. A post's clock starts when it is
 * sent; its event's when the bus has it (the bus is watched every 5 ms). Figures are p50, p95 and
 * p99 in milliseconds, measured on this machine: the local stream poller stands in for Lambda's,
 * so they describe the bridge's own work and the poller's cadence, not AWS's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalBridge } from '../local/bridge.ts';
import { reportItem } from '../test/support/gateway-bodies.ts';
import { figuresTable, round, type ScenarioResult } from './report.ts';

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const runLatency = async (): Promise<ScenarioResult> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'msgbridge-bench-latency-'));
  const bridge = await startLocalBridge({
    port: 0,
    simulatorPort: 0,
    webhookSecret: 'bench-secret-0123456789',
    dataDir,
    apiKey: 'bench-key',
    apiPassword: 'bench-password',
    tpsQuota: 50,
    printEvents: false,
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
        p50Ms: round(percentile(latencies, 50), 0),
        p95Ms: round(percentile(latencies, 95), 0),
        p99Ms: round(percentile(latencies, 99), 0),
      };
    };
    const slow = await phase('one', 1, 20);
    const busy = await phase('fifty', 50, 500);
    const figures = { webhookToEvent: { at1PerSecond: slow, at50PerSecond: busy } };
    return {
      figures,
      tables: [
        {
          title: 'webhook → event on the bus, local run (ms)',
          columns: ['posts/s', 'posts', 'published', 'p50', 'p95', 'p99'],
          rows: [slow, busy].map((r) => [
            r.perSecond,
            r.posts,
            r.published,
            r.p50Ms,
            r.p95Ms,
            r.p99Ms,
          ]),
        },
        figuresTable('latency goals', [
          ['every post published, at 1/s', `${slow.published}/${slow.posts}`, 'all'],
          ['every post published, at 50/s', `${busy.published}/${busy.posts}`, 'all'],
        ]),
      ],
    };
  } finally {
    clearInterval(watcher);
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
