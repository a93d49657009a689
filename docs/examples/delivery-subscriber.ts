import {
  type DeliveryReportReceived,
  DetailType,
  type InboundMessageReceived,
  isDeliveryReportReceived,
  isInboundMessageReceived,
} from '../../events/index.ts';

/** The stack's `eventSource` (context key), `msgbridge` unless the deployment changed it. */
const SOURCE = 'msgbridge';

/** What this subscriber decided; a real one would write a ticket or a reply instead. */
export type FollowUp =
  | { readonly action: 'resend-later' | 'give-up'; readonly cliKey: string; readonly code: string }
  | { readonly action: 'answer'; readonly moKey: string; readonly text: string }
  | { readonly action: 'ignore'; readonly reason: string };

/**
 * The target of a rule such as
 * `{ "source": ["msgbridge"], "detail-type": ["Delivery Report Received", "Inbound Message Received"] }`.
 * The guards check the envelope, so an event of another type or source (a rule widened by
 * mistake) is ignored instead of being read as the wrong shape.
 */
export const handler = async (event: unknown): Promise<FollowUp> => {
  if (isDeliveryReportReceived(event, SOURCE)) return onDeliveryReport(event);
  if (isInboundMessageReceived(event, SOURCE)) return onInboundMessage(event);
  return { action: 'ignore', reason: 'not a delivery report or an inbound message' };
};

const onDeliveryReport = ({ detail: { data } }: DeliveryReportReceived): FollowUp => {
  // `messageStatus` is the message's status after this report, and it never moves back: a report
  // that comes after a delivery (a late `32114`, an earlier channel's failure) still says
  // `delivered`. `delivered` and `failureCategory` describe this one report only.
  if (data.messageStatus === 'delivered')
    return { action: 'ignore', reason: `${data.cliKey} delivered` };
  if (data.messageStatus === 'uncertain')
    return { action: 'ignore', reason: `${data.cliKey} may still arrive (${data.resultCode})` };
  // `failureCategory` is typed 'retryable' | 'permanent' | 'uncertain' | null.
  const action = data.failureCategory === 'retryable' ? 'resend-later' : 'give-up';
  return { action, cliKey: data.cliKey, code: data.resultCode };
};

const onInboundMessage = ({ detail }: InboundMessageReceived): FollowUp => {
  // `metadata.id` is stable across redeliveries and replays: de-duplicate on it before acting.
  if (detail.data.text === null)
    return { action: 'ignore', reason: `${detail.metadata.id}: no text` };
  return { action: 'answer', moKey: detail.data.moKey, text: detail.data.text };
};

/** Rule patterns can use the constants instead of the strings. */
export const rulePattern = {
  source: [SOURCE],
  'detail-type': [DetailType.DeliveryReportReceived, DetailType.InboundMessageReceived],
};
