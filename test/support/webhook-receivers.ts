/** The bridge's real report and MO webhook receivers, served on loopback as the local run serves them. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { ReceiveDeps } from '../../functions/received-items/receive-items.ts';
import { createWebhookHandler } from '../../functions/webhooks/handler.ts';
import { startWebhookServer, type WebhookServer } from '../../local/webhook-server.ts';

/** Starts both receivers on `receive`, accepting the webhook path secret `secret`. */
export const startWebhookReceivers = (
  receive: ReceiveDeps,
  secret: string,
): Promise<WebhookServer> => {
  const logger = new Logger({ logLevel: 'SILENT' });
  const metrics = new Metrics({ namespace: 'test', serviceName: 'test' });
  const current = async () => ({ current: secret });
  return startWebhookServer({
    handlers: {
      report: createWebhookHandler({ kind: 'report', secret: current, receive, logger, metrics }),
      mo: createWebhookHandler({ kind: 'mo', secret: current, receive, logger, metrics }),
    },
  });
};
