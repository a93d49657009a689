import type { S3Client } from '@aws-sdk/client-s3';
import type { ResendOptions } from '../../../gateway/bearer/fresh-token-retry.ts';
import type { GatewayClient, MmsFile } from '../../../gateway/client.ts';
import { s3OnFirstUse } from '../../commons/clients/s3-on-first-use.ts';
import type { SendMessage } from '../../send-contract/queue-message.ts';
import type { SendGateway } from '../ports.ts';

/** Largest attachment read from S3 for the multipart MMS endpoint. */
export const MAX_MMS_FILE_BYTES = 5 * 1024 * 1024;

/**
 * Reads the S3 objects of an MMS with attachments; refuses any larger than MAX_MMS_FILE_BYTES.
 * Without a `client`, the container's shared one. The S3 SDK is imported by the first MMS with
 * attachments, not at start: most sends carry none (docs/performance.md, `cold-start`).
 */
export const loadS3Attachments = async (
  attachments: ReadonlyArray<{ bucket: string; key: string; name?: string; contentType?: string }>,
  given?: S3Client,
): Promise<MmsFile[]> => {
  const { GetObjectCommand, s3Client } = await s3OnFirstUse();
  const client = given ?? s3Client();
  return Promise.all(
    attachments.map(async (attachment) => {
      const object = await client.send(
        new GetObjectCommand({ Bucket: attachment.bucket, Key: attachment.key }),
      );
      if ((object.ContentLength ?? 0) > MAX_MMS_FILE_BYTES) {
        throw new Error(
          `s3://${attachment.bucket}/${attachment.key} is larger than ${MAX_MMS_FILE_BYTES} bytes`,
        );
      }
      const data = await object.Body?.transformToByteArray();
      if (!data) throw new Error(`s3://${attachment.bucket}/${attachment.key} has no body`);
      return {
        name: attachment.name ?? attachment.key.split('/').at(-1) ?? 'attachment',
        contentType: attachment.contentType ?? object.ContentType ?? 'application/octet-stream',
        data,
      };
    }),
  );
};

/** The sender's gateway port on the typed client: routes each channel and variant to its endpoint. */
export class GatewaySender implements SendGateway {
  constructor(
    private readonly client: GatewayClient,
    private readonly loadAttachments: typeof loadS3Attachments = loadS3Attachments,
  ) {}

  /**
   * `options.beforeSend` runs for every request, after the attachments are read from S3, once its
   * connection is open (see `SendGateway`).
   */
  send(message: SendMessage, options: ResendOptions = {}) {
    switch (message.channel) {
      case 'sms':
        return this.client.sendSms(message.body, {
          ...options,
          legacyPath: message.variant === 'msg',
        });
      case 'mms':
        if (message.attachments.length > 0) {
          return this.loadAttachments(message.attachments).then((files) =>
            this.client.sendMmsWithFiles(message.body, files, options),
          );
        }
        return this.client.sendMms(message.body, {
          ...options,
          legacyPath: message.variant === 'msg',
        });
      case 'rcs':
        return message.variant === 'v1'
          ? this.client.sendRcs('rcsV1', message.body, options)
          : message.variant === 'v1.1'
            ? this.client.sendRcs('rcsV11', message.body, options)
            : this.client.sendRcs('rcsIntegrated', message.body, options);
      case 'rcs-reply':
        return this.client.sendRcsReply(message.body, options);
      case 'push':
        return this.client.sendPush(message.body, options);
      case 'messenger-notice':
        return this.client.sendMessengerNotice(message.body, options);
      case 'brand-template':
        return this.client.sendBrandTemplate(message.body, options);
      case 'brand-free':
        return this.client.sendBrandFree(message.body, options);
    }
  }
}
