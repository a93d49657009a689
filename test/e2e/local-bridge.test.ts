/**
 * End to end through the local stack: 1,000 recipients in 100 queue messages across the channels,
 * reports with a mix of outcomes and fallbacks, delivered by webhook AND polling, with duplicate
 * webhook deliveries and 400-then-retry, and inbound messages with attachments. Every accepted recipient must end as exactly one delivery event, every
 * inbound message as one event, with no duplicates, no losses and nothing in the DLQ.
 */
import { rmSync } from 'node:fs';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsBody } from '../../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../../functions/send-contract/queue-message.ts';
import { type LocalBridge, startLocalBridge } from '../../local/bridge.ts';
import { enqueueSend } from '../../producer/enqueue-send.ts';
import { SEND_MESSAGE_EXAMPLES } from '../../producer/examples.ts';
import { waitFor } from '../support/e2e-wait.ts';
import { namedLocalRun } from '../support/named-local-run.ts';

let bridge: LocalBridge;
const run = namedLocalRun('e2e');
const { dataDir } = run;

beforeAll(async () => {
  bridge = await startLocalBridge(
    run.options({
      tpsQuota: 400,
      // More than two bodies' worth (50 reports each): when the simulator posts the first body twice
      // at once, both posts meet failed writes, so its own post is answered for a retry whichever
      // of the two writes first.
      failFirstWebhookWrites: 120,
      reportDelivery: 'both',
      loseFirstConfirms: 1,
      simulator: {
        reportDelayMs: 300,
        failureRate: 0.2,
        fallbackRate: 0.6,
        webhookRetryIntervalMs: 1_000,
        reportBatchSize: 50,
        // The poller's first confirmation is lost on the way: after this window the simulator
        // offers that page again — polling redelivery, on top of the webhooks.
        confirmWindowMs: 2_000,
        faults: { duplicateWebhookRate: 0.3 },
        seed: 11,
      },
    }),
  );
}, 120_000);

afterAll(async () => {
  await bridge?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The documentation examples with fresh keys, and no scheduled sends (they report days later). */
const channelExamples = (round: number): SendMessageInput[] =>
  SEND_MESSAGE_EXAMPLES.filter(
    (example) => (example.message as { resvYn?: string }).resvYn !== 'Y',
  ).map((example) => {
    const copy = JSON.parse(JSON.stringify(example.message)) as Record<string, unknown>;
    if (Array.isArray(copy.recvInfoLst)) {
      copy.recvInfoLst = copy.recvInfoLst.map((r: Record<string, unknown>) => ({
        ...r,
        cliKey: `e2e-${round}-${String(r.cliKey).slice(0, 16)}`,
      }));
    }
    if (typeof copy.cliKey === 'string') copy.cliKey = `e${round}-${copy.cliKey}`.slice(0, 20);
    delete copy.attachments;
    if (copy.channel === 'mms') copy.channel = 'mms';
    return copy as SendMessageInput;
  });

describe('the local bridge end to end', () => {
  it('turns 1,000 recipients and a batch of inbound messages into exactly one event each', async () => {
    // Prepare: 90 SMS messages of 10 recipients, plus the per-channel examples until 1,000 recipients.
    const messages: SendMessageInput[] = Array.from(
      { length: 90 },
      () => ({ channel: 'sms', ...smsBody(10) }) as SendMessageInput,
    );
    const recipientsOf = (m: SendMessageInput) =>
      'recvInfoLst' in m && Array.isArray(m.recvInfoLst) ? m.recvInfoLst.length : 1;
    for (let round = 0; messages.reduce((sum, m) => sum + recipientsOf(m), 0) < 1_000; round++) {
      for (const example of channelExamples(round)) {
        if (messages.reduce((sum, m) => sum + recipientsOf(m), 0) >= 1_000) break;
        messages.push(example);
      }
    }
    const total = messages.reduce((sum, m) => sum + recipientsOf(m), 0);

    // Act
    const queued = await enqueueSend(bridge.sqs, bridge.urls.sendQueue, messages);
    // "Message Accepted" is off (the default): a recipient is decided by its report or rejection.
    const reportedKeys = () =>
      new Set(bridge.bus.details('Delivery Report Received').map((e) => e.data.cliKey));
    const decided = () => reportedKeys().size + bridge.bus.details('Message Rejected').length;
    await waitFor(() => decided() >= total, 90_000, 250);
    // Inbound messages arrive while reports are still flowing.
    const injected = bridge.sim.injectMo(
      Array.from({ length: 20 }, (_, i) => ({
        moType: i % 2 === 0 ? ('SMSMO' as const) : ('LMSMO' as const),
        moCallback: `0101234${String(1000 + i)}`,
        moNumber: '15880000',
        moMsg: `문의 ${i}`,
        ...(i < 4
          ? {
              attachments: [
                { name: `photo-${i}.jpg`, contentType: 'image/jpeg', sizeBytes: 20_000 + i },
              ],
            }
          : {}),
      })),
    ) as Array<{ moKey: string }>;
    await waitFor(
      () => bridge.bus.details('Inbound Message Received').length >= injected.length,
      90_000,
      250,
    );
    await waitFor(() => bridge.bus.details('Inbound Attachment Stored').length >= 4, 60_000, 250);
    await waitFor(() => bridge.sim.snapshot().reports.polling.returnedUnconfirmed > 0, 60_000, 250);
    await new Promise((resolve) => setTimeout(resolve, 12_000)); // the redelivered page is polled again

    // Assess
    expect(queued.queued).toHaveLength(messages.length);
    expect(total).toBeGreaterThanOrEqual(1_000);
    expect(decided()).toBe(total);
    expect(bridge.bus.details('Message Rejected')).toEqual([]);
    expect(bridge.bus.details('Message Accepted')).toEqual([]);
    // One report per recipient, for every cliKey queued: none lost, none twice.
    const reports = bridge.bus.details('Delivery Report Received');
    const queuedKeys = messages.flatMap((m) =>
      'recvInfoLst' in m && Array.isArray(m.recvInfoLst)
        ? m.recvInfoLst.map((r: { cliKey: string }) => r.cliKey)
        : [(m as { cliKey: string }).cliKey],
    );
    expect(reports.map((e) => e.data.cliKey).sort()).toEqual([...queuedKeys].sort());
    expect(new Set(reports.map((e) => e.data.msgKey)).size).toBe(reports.length);
    expect(new Set(reports.map((e) => e.metadata.id)).size).toBe(reports.length);
    expect(reports.some((e) => (e.data.fallbackReasons as unknown[]).length > 0)).toBe(true);
    expect(reports.some((e) => e.data.delivered === false)).toBe(true);
    const inbound = bridge.bus.details('Inbound Message Received');
    expect(inbound.map((e) => e.data.moKey).sort()).toEqual(
      injected.map((item) => item.moKey).sort(),
    );
    const snapshot = bridge.sim.snapshot();
    expect(snapshot.reports.webhook.duplicatePosts).toBeGreaterThan(0);
    expect(snapshot.reports.webhook.retries).toBeGreaterThan(0);
    expect(bridge.fauxqs.inspectQueue(bridge.queues.sendDlq.name)?.messages.ready ?? []).toEqual(
      [],
    );
    expect(bridge.publisherFailureCount()).toBe(0);
    const attachments = bridge.bus.details('Inbound Attachment Stored');
    expect(attachments.map((e) => e.data.sizeBytes).sort()).toEqual([
      20_000, 20_001, 20_002, 20_003,
    ]);
    // Fetched from the simulator's content URLs: the local run allows its loopback origin only.
    expect(attachments.map((e) => e.data.source)).toEqual(Array(4).fill('content-url'));
    for (const attachment of attachments) {
      const s3 = attachment.data.s3 as { bucket: string; key: string };
      const head = await bridge.s3.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3.key }));
      expect(head.ContentLength).toBe(attachment.data.sizeBytes);
    }
    expect(snapshot.reports.polling.polls).toBeGreaterThan(0);
    expect(snapshot.reports.polling.returnedUnconfirmed).toBeGreaterThan(0);
  });
});
