/**
 * The chaos run's producers: the workload fed to the running bridge interleaved, as it would
 * arrive. Send batches go on the send queue with the bad sends past every producer check, the
 * seed's token revocations among them; inbound messages are made at the simulator, which posts
 * them by its webhook; hostile bodies are posted straight to the webhook routes, as a gateway
 * would, again after a retry answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseSendMessage } from '../functions/send-contract/queue-message-parsing.ts';
import type { LocalBridge } from '../local/bridge.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/dynamodb-local.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { type FaultPlan, prng } from './faults.ts';
import type { GatewayLedger, HostileAnswers, QueuedBadSend } from './invariants.ts';
import type { BadSend, HostileBody, Workload } from './workload.ts';

/** What the feed put in, for the invariants to hold the bridge to. */
export interface Fed {
  /** The bad sends, as queued: the SQS message ids their Send Rejected is found by. */
  readonly badSends: readonly QueuedBadSend[];
  /** The MO items the simulator made, with their attachment counts. */
  readonly mo: GatewayLedger['mo'];
  /** How each hostile body was last answered. */
  readonly hostileAnswers: HostileAnswers;
}

/**
 * Feeds `workload` to the running bridge: its sends, inbound messages and hostile bodies side by
 * side, each stream with seeded pauses, the seed's token revocations before some send batches.
 */
export const feedWorkload = async (
  bridge: LocalBridge,
  workload: Workload,
  plan: FaultPlan,
): Promise<Fed> => {
  const badSends: QueuedBadSend[] = [];
  const mo: Array<{ moKey: string; attachments: number }> = [];
  const hostileAnswers = new Map<string, number | undefined>();
  const producer = new SQSClient({
    endpoint: bridge.urls.sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const random = prng(plan.seed * 31 + 7);
  const pause = () => sleep(Math.floor(random() * 150));
  const revokeAt = new Set(
    Array.from({ length: plan.mix.tokenRevocations }, () =>
      Math.floor(random() * workload.sends.length),
    ),
  );
  // SQS message ids by batch and position: a reused cliKey's Send Rejected names its first's.
  const messageIds: string[][] = [];
  const sending = (async () => {
    for (const [index, batch] of workload.sends.entries()) {
      if (revokeAt.has(index)) {
        bridge.sim.revokeTokens();
        plan.count('gateway.tokensRevoked');
      }
      const withBatch = workload.badSends.filter((bad) => bad.batch === index && bad.sameBatch);
      if (withBatch.length === 0) {
        const result = await enqueueSend(producer, bridge.urls.sendQueue, batch);
        if (result.invalid.length > 0 || result.failed.length > 0) {
          throw new Error(
            `the workload's send batch ${index} was not queued: ${JSON.stringify({ invalid: result.invalid, failed: result.failed })}`,
          );
        }
        messageIds[index] = result.queued.map((entry) => entry.messageId);
      } else {
        // One SendMessageBatch call for the batch and the bad sends that go with it, so that
        // a reuse and its first can reach one invocation; the valid ones checked as
        // enqueueSend checks them.
        for (const message of batch) {
          const parsed = parseSendMessage(message, { now: new Date() });
          if (!parsed.ok)
            throw new Error(
              `the workload's send batch ${index} holds an invalid message: ${JSON.stringify(parsed.problems)}`,
            );
        }
        const ids = await queueBodies(producer, bridge.urls.sendQueue, [
          ...batch.map((message) => JSON.stringify(message)),
          ...withBatch.map((bad) => bad.body),
        ]);
        messageIds[index] = ids.slice(0, batch.length);
        for (const [at, bad] of withBatch.entries())
          badSends.push(queued(bad, ids[batch.length + at] ?? '', messageIds));
      }
      for (const bad of workload.badSends.filter((b) => b.batch === index && !b.sameBatch)) {
        const [id] = await queueBodies(producer, bridge.urls.sendQueue, [bad.body]);
        badSends.push(queued(bad, id ?? '', messageIds));
      }
      await pause();
    }
  })();
  const inbound = (async () => {
    for (const batch of workload.mo) {
      for (const item of bridge.sim.injectMo(batch)) {
        mo.push({
          moKey: item.moKey,
          attachments: item.contentInfoLst?.length ?? 0,
        });
      }
      await pause();
    }
  })();
  const hostile = (async () => {
    for (const body of workload.hostile) {
      hostileAnswers.set(body.sha256, await post(bridge, body));
      if (body.repost) await post(bridge, body);
      await pause();
    }
  })();
  await Promise.all([sending, inbound, hostile]);
  producer.destroy();
  return { badSends, mo, hostileAnswers };
};

/**
 * Puts bodies on the queue as they are, past every producer check (one SendMessage, or one
 * SendMessageBatch call): their SQS message ids, in order. SendMessageBatch fails entry by entry,
 * so each entry's result is read.
 */
const queueBodies = async (
  sqs: SQSClient,
  queueUrl: string,
  bodies: readonly string[],
): Promise<string[]> => {
  if (bodies.length === 1) {
    const answer = await sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: bodies[0] }),
    );
    if (!answer.MessageId) throw new Error('the queue took a bad send without a message id');
    return [answer.MessageId];
  }
  const answer = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, at) => ({ Id: `m${at}`, MessageBody: body })),
    }),
  );
  const ids = new Map((answer.Successful ?? []).map((entry) => [entry.Id, entry.MessageId]));
  return bodies.map((_, at) => {
    const id = ids.get(`m${at}`);
    if (!id)
      throw new Error(
        `entry ${at} of a batch with bad sends was not queued: ${JSON.stringify(answer.Failed ?? [])}`,
      );
    return id;
  });
};

/** A bad send as queued, with its first message's id when it reuses a cliKey. */
const queued = (
  bad: BadSend,
  sqsMessageId: string,
  messageIds: ReadonlyArray<readonly string[] | undefined>,
): QueuedBadSend => ({
  kind: bad.kind,
  sqsMessageId,
  bytes: Buffer.byteLength(bad.body, 'utf8'),
  cliKeys: bad.cliKeys,
  ...(bad.reuse
    ? {
        reuse: {
          cliKey: bad.reuse.cliKey,
          firstSqsMessageId: messageIds[bad.reuse.batch]?.[bad.reuse.position] ?? '',
          firstPhones: bad.reuse.firstPhones,
          phones: bad.reuse.phones,
        },
      }
    : {}),
});

/** Posts a hostile body as a gateway would: again after a retry answer, a few times at most. */
const post = async (bridge: LocalBridge, body: HostileBody): Promise<number | undefined> => {
  const url = body.route === 'report' ? bridge.urls.reportWebhook : bridge.urls.moWebhook;
  let status: number | undefined;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...body.headers },
        body: body.body,
      });
      status = response.status;
      const text = await response.text();
      if (status === 413) return status;
      const final =
        body.route === 'report'
          ? status !== 400 && status < 500
          : status >= 200 && status < 300 && codeOf(text) === '10000';
      if (final) return status;
    } catch {
      status = undefined;
    }
    await sleep(300 * (attempt + 1));
  }
  return status;
};

const codeOf = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { code?: string }).code;
  } catch {
    return undefined;
  }
};
