/**
 * How the local webhook server (local/webhook-server.ts) reads a request's body: within what the
 * deployed front door takes at all (413 above), and holding no more of it than could still fit in
 * the event its function would be invoked with.
 */
import type { IncomingMessage } from 'node:http';
import { LAMBDA_PAYLOAD_BYTES } from '../functions/webhooks/handler.ts';
import { isTextBody, type WebhookFrontDoor } from './webhook-events.ts';

/**
 * A REST API refuses a payload above 10 MB with 413 before any integration runs (API Gateway
 * quotas, "Payload size 10 MB", https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html,
 * read 2026-12-07).
 */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The largest binary body whose base64 text alone (4 characters for every 3 bytes) is within
 * Lambda's invoke payload: a function URL puts a binary body in its event base64-encoded, so a
 * larger one can never fit, whatever the rest of the event.
 */
const LARGEST_BASE64_BODY = Math.floor(LAMBDA_PAYLOAD_BYTES / 4) * 3;

/** The body went over what the front door takes at all; answered 413 as it does. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** The client went away before its body was complete: there is nobody left to answer. */
class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
}

/**
 * How much of a body the front door reads: `keep`, the most that could still fit in the event the
 * function would be invoked with (a longer body's bytes are counted and dropped: its answer no
 * longer depends on them); `refuseAbove`, where the front door refuses the request itself and
 * reading stops. A function URL answers an event too large for Lambda with 413 either way, so it
 * stops at `keep`; API Gateway takes up to 10 MB (413 above), and only then does Lambda refuse
 * the event (500).
 */
export interface BodyLimits {
  readonly keep: number;
  readonly refuseAbove: number;
}

export const bodyLimits = (
  front: WebhookFrontDoor,
  headers: IncomingMessage['headers'],
): BodyLimits => {
  // No body takes fewer bytes in the event than on the wire: text becomes a JSON string (escaped,
  // bytes that are not UTF-8 read as U+FFFD's three), binary its base64, a third more. The REST
  // API has no binary media types, so it passes every body as text.
  if (front === 'rest-api')
    return { keep: LAMBDA_PAYLOAD_BYTES, refuseAbove: API_GATEWAY_MAX_BODY_BYTES };
  const keep = isTextBody(headers['content-type'], headers['content-encoding'])
    ? LAMBDA_PAYLOAD_BYTES
    : LARGEST_BASE64_BODY;
  return { keep, refuseAbove: keep };
};

/** A whole body, or the size of one too large to fit in any event (its bytes are not kept). */
export type ReadBody =
  | { readonly kind: 'body'; readonly body: Buffer }
  | { readonly kind: 'over-event'; readonly bytes: number };

/**
 * The body, read within `limits`: a declared length above `refuseAbove` is refused before a byte
 * is read, and a chunked body as soon as it grows past it; past `keep` the bytes are counted and
 * dropped, so no more than one event's worth is ever held. Rejects with
 * {@link BodyTooLargeError} or, when the client hangs up or stalls, {@link ClientGoneError}.
 */
export const readBody = (request: IncomingMessage, limits: BodyLimits): Promise<ReadBody> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limits.refuseAbove) {
      request.resume();
      reject(new BodyTooLargeError(`declared ${declared} bytes`));
      return;
    }
    let chunks: Buffer[] | undefined = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('aborted', onGone);
      request.off('close', onClose);
      // Keep a listener so a late socket error on this request is never unhandled.
      request.on('error', () => undefined);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.refuseAbove) {
        request.pause();
        finish(() => reject(new BodyTooLargeError(`more than ${limits.refuseAbove} bytes`)));
        return;
      }
      if (size > limits.keep) chunks = undefined;
      else chunks?.push(chunk);
    };
    const onEnd = () =>
      finish(() =>
        resolve(
          chunks === undefined
            ? { kind: 'over-event', bytes: size }
            : { kind: 'body', body: Buffer.concat(chunks) },
        ),
      );
    const onGone = () => finish(() => reject(new ClientGoneError('the client went away')));
    const onClose = () => {
      if (!request.complete) onGone();
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('aborted', onGone);
    request.on('close', onClose);
  });
