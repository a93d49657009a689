/**
 * The end-to-end scenario's workload: the outbound queue messages (SMS, and one message for each
 * other channel of `docs/sending.md`, each with the same number of recipients), the MMS example's
 * poster it sends from S3, and the inbound messages the simulator makes, one webhook post each.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { smsBody } from '../fixtures/send-bodies.ts';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import type { LocalBridge } from '../local/bridge.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';

const QUEUE_MESSAGES = 100;
export const INBOUND_MESSAGES = 100;
export const INBOUND_WITH_ATTACHMENT = 10;

const MMS_ASSET = { bucket: 'hanbit-mms-assets', key: 'campaigns/2026-12/poster.jpg' };

/** The examples of `docs/sending.md`, each with `recipients`; scheduled and reply sends left out. */
const otherChannelMessages = (runId: string, recipients: number): SendMessageInput[] =>
  SEND_MESSAGE_EXAMPLES.filter(
    (example) =>
      (example.message as { resvYn?: string }).resvYn !== 'Y' &&
      example.message.channel !== 'rcs-reply',
  ).map((example, m) => {
    const copy = structuredClone(example.message) as Record<string, unknown>;
    const template = Array.isArray(copy.recvInfoLst)
      ? (copy.recvInfoLst[0] as Record<string, unknown>)
      : {};
    copy.recvInfoLst = Array.from({ length: recipients }, (_, i) => ({
      ...template,
      cliKey: `b${runId}-${m}-${i}`,
      phone: `0109876${String(m * 100 + i).padStart(4, '0')}`,
      ...('cuid' in template ? { cuid: `user-${m}-${i}` } : {}),
    }));
    return copy as SendMessageInput;
  });

/** The outbound phase's queue messages, SMS but one per other channel, `recipients` each. */
export const outboundMessages = (runId: string, recipients: number): SendMessageInput[] => {
  const others = otherChannelMessages(runId, recipients);
  const sms = Array.from(
    { length: QUEUE_MESSAGES - others.length },
    () => ({ channel: 'sms', ...smsBody(recipients) }) as SendMessageInput,
  );
  return [...sms, ...others];
};

/** Setup, not counted: the MMS example's poster in its bucket. */
export const putMmsPoster = async (bridge: LocalBridge): Promise<void> => {
  bridge.fauxqs.createBucket(MMS_ASSET.bucket);
  await bridge.s3.send(
    new PutObjectCommand({
      Bucket: MMS_ASSET.bucket,
      Key: MMS_ASSET.key,
      Body: Buffer.alloc(40_000, 7),
      ContentType: 'image/jpeg',
    }),
  );
};

/**
 * `count` inbound messages made at the simulator, each posted on its own, the first
 * `withAttachment` of them MMS with a 50 KB attachment.
 */
export const injectInbound = async (
  bridge: LocalBridge,
  count: number,
  withAttachment: number,
): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const mms = i < withAttachment;
    bridge.sim.injectMo([
      {
        moType: mms ? 'MMSMO' : i % 2 === 0 ? 'SMSMO' : 'LMSMO',
        moCallback: `0101234${String(1000 + i)}`,
        moNumber: '15880000',
        moMsg: `문의 ${i}`,
        ...(mms
          ? {
              attachments: [
                { name: `photo-${i}.jpg`, contentType: 'image/jpeg', sizeBytes: 50_000 },
              ],
            }
          : {}),
      },
    ]);
    await sleep(5);
  }
};
