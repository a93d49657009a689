import { webhookLambda } from './inbound/webhook-lambda.ts';

/** `POST /webhooks/{secret}/report`: stores each delivery report once, then answers 200, 204 or 400. */
export const handler = webhookLambda('report', 'receive-reports');
