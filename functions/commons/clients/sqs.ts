import { SQSClient } from '@aws-sdk/client-sqs';

// One client per container, created on first use; it honours AWS_ENDPOINT_URL_SQS locally. In
// Lambda a message it sends carries the invocation's trace header (the SDK's own) to its consumer.
let shared: SQSClient | undefined;

/** The SQS client of the functions that change a message's visibility or enqueue. */
export const sqsClient = (): SQSClient => {
  shared ??= new SQSClient({});
  return shared;
};
