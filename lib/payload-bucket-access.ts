import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { PAYLOAD_KEY_PREFIX } from '../functions/event-table/payload-bucket.ts';

/**
 * Lets the functions that store received items (the webhook receivers, `poll-reports`,
 * `reconcile-status`) and the sender (a rejected queue message) keep bodies too large for one item or one event in `bucket` below
 * `payloads/` (the claim check): `PAYLOAD_BUCKET` in their environment, `s3:PutObject` on that
 * prefix only (one object per body; no read, list or delete), and `kms:GenerateDataKey` on the
 * bucket's key, which SSE-KMS needs to write a new object. Nothing reads the objects back in the
 * functions: subscribers that follow a `payloadRef` get their own access.
 */
export const grantPayloadWrites = (bucket: Bucket, functions: readonly LambdaFunction[]): void => {
  const objects = bucket.arnForObjects(`${PAYLOAD_KEY_PREFIX}*`);
  for (const fn of functions) {
    fn.addEnvironment('PAYLOAD_BUCKET', bucket.bucketName);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    bucket.encryptionKey?.grant(fn, 'kms:GenerateDataKey');
    acknowledgeWildcard(bucket, fn);
  }
};

const acknowledgeWildcard = (bucket: Bucket, fn: LambdaFunction): void => {
  const cfnBucket = bucket.node.defaultChild;
  if (!CfnElement.isCfnElement(cfnBucket)) throw new Error('the payload bucket has no CfnBucket');
  if (!fn.role) return;
  const bucketId = Stack.of(bucket).getLogicalId(cfnBucket);
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${PAYLOAD_KEY_PREFIX}*]`,
    reason: `The object key (${PAYLOAD_KEY_PREFIX}<report|mo|send>/<SHA-256 of the body>) is only known when a body arrives, so the function may create any object below ${PAYLOAD_KEY_PREFIX} of this bucket and nothing else: no read, list or delete, no other prefix or bucket.`,
  });
};
