/*
 * A producer in another service: a Lambda of the customer's order service that tells a customer
 * their order was received. `enqueueSend` checks each message with the sender's own rules
 * before it is queued and reports every message it did not queue, with the reason.
 * Its stack is `producer-stack.ts`.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { enqueueSend, type SendMessageInput } from 'msgbridge/send';

const sqs = new SQSClient({});
const queueUrl = process.env.SEND_QUEUE_URL;
if (!queueUrl) throw new Error('SEND_QUEUE_URL is required');

interface OrderPlaced {
  readonly orderId: string;
  readonly customerName: string;
  readonly phone: string;
}

export const handler = async (orders: readonly OrderPlaced[]): Promise<void> => {
  const messages: SendMessageInput[] = orders.map((order) => ({
    channel: 'sms',
    callback: '0215880000',
    msg: '[한빛마트] #{name}님, 주문이 접수되었습니다.',
    // cliKey is the idempotency key: a redelivered order is never sent twice.
    recvInfoLst: [
      {
        cliKey: `order-${order.orderId}`,
        phone: order.phone,
        mergeData: { name: order.customerName },
      },
    ],
  }));
  const { invalid, failed } = await enqueueSend(sqs, queueUrl, messages);
  for (const { index, problems } of invalid)
    console.error(JSON.stringify({ order: orders[index]?.orderId, problems }));
  // Failed to queue (SQS refused or was unreachable): fail the invocation so it is retried.
  if (failed.length > 0) throw new Error(`${failed.length} messages could not be queued`);
};
