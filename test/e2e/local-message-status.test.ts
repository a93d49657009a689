/**
 * Through the local run (front door, receiver, DynamoDB Local, its stream, publish-events, the
 * local bus): publish-events puts each report's message status at publication, so a "success
 * uncertain" report posted after the message's delivery is published with `messageStatus`
 * `delivered`, and one published before the delivery was stored with `uncertain` (issue 35, item
 * 7). The publisher's reads of the reports are allowed by its synthesized IAM (the replay).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportItem } from '../../fixtures/gateway-bodies.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { waitFor } from '../support/e2e-wait.ts';
import { describeDenials, replayIam } from '../support/iam-replay.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

const run = namedLocalRun('msgstatus');
let bridge: LocalBridge;

beforeAll(async () => {
  bridge = await startLocalBridge(
    run.options({ tpsQuota: 100, simulator: { reportDelayMs: 200, failureRate: 0, seed: 7 } }),
  );
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  rmSync(run.dataDir, { recursive: true, force: true });
});

const postReport = async (msgKey: string, resultCode: string, ch: string) => {
  const answer = await fetch(bridge.urls.reportWebhook, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rptCnt: 1, rptLst: [{ ...reportItem(0, { resultCode, ch }), msgKey }] }),
  });
  expect(answer.status).toBe(200);
};

/** The published reports of one message, in the order the bus got them. */
const published = (msgKey: string) =>
  bridge.bus
    .details('Delivery Report Received')
    .filter((detail) => detail.data.msgKey === msgKey)
    .map((detail) => ({
      resultCode: detail.data.resultCode,
      delivered: detail.data.delivered,
      messageStatus: detail.data.messageStatus,
    }));

describe('messageStatus through the local run', () => {
  it('publishes a 32114 after a 10000 as delivered, and one published before it as uncertain', async () => {
    // Act: M-EARLY's 32114 is on the bus before its 10000 is posted
    await postReport('M-LATE', '10000', 'MSGR');
    await postReport('M-LATE', '32114', 'MSGR');
    await postReport('M-EARLY', '32114', 'MSGR');
    await waitFor(() => published('M-EARLY').length === 1, 30_000);
    await postReport('M-EARLY', '10000', 'MSGR');
    await waitFor(() => published('M-LATE').length + published('M-EARLY').length === 4, 30_000);

    // Assess: in the order the bus got them
    expect(published('M-LATE')).toEqual([
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
      { resultCode: '32114', delivered: false, messageStatus: 'delivered' },
    ]);
    expect(published('M-EARLY')).toEqual([
      { resultCode: '32114', delivered: false, messageStatus: 'uncertain' },
      { resultCode: '10000', delivered: true, messageStatus: 'delivered' },
    ]);
    // The publisher queried the reports' partitions, as its synthesized policy allows
    const queries = bridge.recorder.calls.filter(
      (call) => call.functionName === 'publish-events' && call.operation === 'Query',
    );
    expect(queries.length).toBeGreaterThan(0);
    const replay = await replayIam(bridge.deployment, bridge.recorder.calls);
    expect(describeDenials(replay.denials)).toBe('');
  });
});
