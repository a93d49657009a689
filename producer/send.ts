/**
 * `msgbridge/send`: what a producer in another stack or service needs to put send messages on the
 * send queue: the message type, the validation the sender runs, and the batching producer.
 */

export { SEND_CHANNELS, type SendChannel } from '../functions/send-contract/channels.ts';
export type {
  Problem,
  SendMessage,
  SendMessageInput,
} from '../functions/send-contract/queue-message.ts';
export { SCHEDULE_HORIZON_DAYS } from '../functions/send-contract/queue-message.ts';
export {
  type ParseSendMessageResult,
  parseSendMessage,
} from '../functions/send-contract/queue-message-parsing.ts';
export type { EnqueueSendResult } from './enqueue-send.ts';
export {
  enqueueSend,
  MAX_ENQUEUE_RETRIES,
  SQS_MAX_BATCH_BYTES,
  SQS_MAX_BATCH_ENTRIES,
} from './enqueue-send.ts';
