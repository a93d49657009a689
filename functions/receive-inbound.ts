import { webhookLambda } from './inbound/webhook-lambda.ts';

/** `POST /webhooks/{secret}/mo`: stores each inbound message once, then answers code 10000. */
export const handler = webhookLambda('mo', 'receive-inbound');
