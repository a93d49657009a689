import { quarantinedItem, unrecognisedBody } from './body-events.ts';
import {
  deliveryReport,
  inboundAttachmentLost,
  inboundAttachmentStored,
  inboundMessage,
  messageAccepted,
  messageRejected,
  messageScheduled,
  messageStatusUnavailable,
  messengerStatistics,
  sendRejected,
  trackingUrlStatistics,
} from './catalogue.ts';

/*
 * The whole event catalogue, for what reads all of it: the generated documents, the schema
 * registry, the console and the tests. A Lambda's code imports the modules of the events it builds
 * (`catalogue.ts`, `body-events.ts`), never this one, so that its bundle holds those events alone.
 */

export * from './body-events.ts';
export * from './catalogue.ts';
export * from './statistics-events.ts';

/** Every event type, by name: for the generated documents, the registry and the console. */
export const EVENT_TYPES = {
  deliveryReport,
  inboundMessage,
  unrecognisedBody,
  quarantinedItem,
  messageAccepted,
  messageRejected,
  messageScheduled,
  sendRejected,
  inboundAttachmentStored,
  inboundAttachmentLost,
  messageStatusUnavailable,
  trackingUrlStatistics,
  messengerStatistics,
} as const;
export type EventTypeName = keyof typeof EVENT_TYPES;
