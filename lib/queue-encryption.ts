import type { IKey } from 'aws-cdk-lib/aws-kms';
import { QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';

/**
 * Server-side encryption of a queue: the stack's customer managed key when there is one (the
 * stack always passes it; a construct used on its own may not), SQS-managed keys otherwise.
 */
export const queueEncryption = (
  encryptionKey: IKey | undefined,
): Pick<QueueProps, 'encryption' | 'encryptionMasterKey'> =>
  encryptionKey
    ? { encryption: QueueEncryption.KMS, encryptionMasterKey: encryptionKey }
    : { encryption: QueueEncryption.SQS_MANAGED };
