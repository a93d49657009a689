/**
 * `npm run demo`: against a running `npm start`, enqueues one message per channel (the examples of
 * docs/sending.md with fresh keys) and makes two end users send inbound messages, one with a photo.
 * The events appear in the `npm start` terminal within seconds.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { SendMessageInput } from '../functions/send-contract/queue-message.ts';
import { LocalRunNotRunningError, readRunningBridge } from '../ops/bridge-file.ts';
import { enqueueSend } from '../producer/enqueue-send.ts';
import { SEND_MESSAGE_EXAMPLES } from '../producer/examples.ts';
import { formatKst } from '../protocol/kst.ts';
import { localClientConfig } from './dynamodb-local.ts';

// The SDK warns on Node 20 that its releases after January 2027 will need Node 22; the pinned
// versions here support Node 20, and the warning would only clutter the local run's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const dataDir = resolve(process.env.LOCAL_DATA_DIR ?? '.local');
// A stopped run leaves nothing to talk to: say so, instead of a connection error's stack trace.
const bridge = await readRunningBridge(dataDir).catch((error: unknown) => {
  console.error(error instanceof LocalRunNotRunningError ? error.message : String(error));
  process.exit(1);
});

/** The documentation example with fresh cliKeys and, for a scheduled one, a time an hour ahead. */
const fresh = (message: SendMessageInput): SendMessageInput => {
  const copy = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
  const suffix = randomUUID().slice(0, 8);
  if (Array.isArray(copy.recvInfoLst)) {
    copy.recvInfoLst = copy.recvInfoLst.map((r: Record<string, unknown>) => ({
      ...r,
      cliKey: `${String(r.cliKey).slice(0, 20)}-${suffix}`,
    }));
  }
  if (typeof copy.cliKey === 'string') copy.cliKey = `${copy.cliKey.slice(0, 11)}-${suffix}`;
  if (copy.resvYn === 'Y') copy.resvReqDt = formatKst(Date.now() + 3_600_000, 'YYYY-MM-DD HH:mm');
  return copy as SendMessageInput;
};

const sqs = new SQSClient(localClientConfig(bridge.sqs));
// The MMS example sends an S3 object: put a small JPEG where the example points.
const s3 = new S3Client({ ...localClientConfig(bridge.s3), forcePathStyle: true });
for (const example of SEND_MESSAGE_EXAMPLES) {
  const attachments = 'attachments' in example.message ? (example.message.attachments ?? []) : [];
  for (const attachment of attachments) {
    await s3.send(new CreateBucketCommand({ Bucket: attachment.bucket })).catch(() => undefined);
    await s3.send(
      new PutObjectCommand({
        Bucket: attachment.bucket,
        Key: attachment.key,
        Body: Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from('demo poster'), 0xff, 0xd9]),
        ContentType: attachment.contentType ?? 'image/jpeg',
      }),
    );
  }
}
const messages = SEND_MESSAGE_EXAMPLES.map((example) => fresh(example.message));
const result = await enqueueSend(sqs, bridge.sendQueue, messages);
console.log(
  `queued ${result.queued.length} messages (${result.invalid.length} invalid, ${result.failed.length} failed)`,
);
for (const invalid of result.invalid) console.log(`  invalid #${invalid.index}:`, invalid.problems);

const answer = await fetch(`${bridge.simulator}/_sim/mo`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    items: [
      {
        moType: 'SMSMO',
        moCallback: '01012345678',
        moNumber: '15880000',
        moMsg: '배송 언제 오나요?',
      },
      {
        moType: 'MMSMO',
        moCallback: '01098765432',
        moNumber: '15880000',
        moMsg: '사진 보냅니다',
        moTitle: '파손 신고',
        attachments: [{ name: 'photo.jpg', contentType: 'image/jpeg', sizeBytes: 48_000 }],
      },
    ],
  }),
});
console.log(`injected 2 inbound messages (simulator answered HTTP ${answer.status})`);
console.log(
  'watch the npm start terminal: delivery reports (and a scheduled message) and the inbound messages arrive as events within seconds',
);
