import { SQSClient } from '@aws-sdk/client-sqs';
import { traceAwsClient } from '../tracing.ts';

// One client per container, created on first use; it honours AWS_ENDPOINT_URL_SQS locally
// and is traced as `traceAwsClient` says.
let shared: SQSClient | undefined;

/** The SQS client of the functions that change a message's visibility or enqueue. */
export const sqsClient = (): SQSClient => {
  shared ??= traceAwsClient(new SQSClient({}));
  return shared;
};
