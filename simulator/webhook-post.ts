import { request } from 'undici';
import type { SimContext } from './context.ts';

/* How the gateway posts to a customer's webhook; the report and MO webhooks share it. */

export type WebhookAttempt =
  | { readonly kind: 'answered'; readonly status: number; readonly body: string }
  | { readonly kind: 'failed'; readonly error: string };

/**
 * Posts a JSON body the way the gateway does: `Content-Type: application/json`, no
 * authentication, and `timeoutMs` for the headers and for the body of the answer.
 */
export const postWebhook = async (
  url: string,
  body: string,
  timeoutMs: number,
): Promise<WebhookAttempt> => {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { kind: 'answered', status: response.statusCode, body: await response.body.text() };
  } catch (error) {
    return { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
};

/** Posts once, or twice concurrently at `faults.duplicateWebhookRate`; the first answer counts. */
export const postWebhookMaybeTwice = async (
  ctx: SimContext,
  url: string,
  body: string,
): Promise<{ attempt: WebhookAttempt; duplicated: boolean }> => {
  const duplicated = ctx.random() < ctx.faults.duplicateWebhookRate;
  const posts = [postWebhook(url, body, ctx.options.webhookTimeoutMs)];
  if (duplicated) posts.push(postWebhook(url, body, ctx.options.webhookTimeoutMs));
  const [attempt] = await Promise.all(posts);
  if (attempt === undefined) throw new Error('no webhook attempt');
  return { attempt, duplicated };
};
