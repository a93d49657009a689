import type { DynamoDBRecord } from 'aws-lambda';
import * as z from 'zod';
import type { EventBus } from '../functions/events/store-ports.ts';
import { failureIdOf, failureOf } from './republish.ts';

/**
 * `POST /_bridge/publisher`: what `msgbridge events republish --local` needs of the running local
 * bridge, which alone holds its publisher's failures and its bus. The local stand-in for Lambda's
 * on-failure destination keeps the stream records themselves (Lambda sends only a pointer to
 * them), so each failure names its item directly.
 *   {"action":"failures"}                → {"failures":[{id, description, keys}]}
 *   {"action":"settle","ids":[…]}        → {"settled":n}   (removes them from the list)
 *   {"action":"publish","entries":[…]}   → {"results":[…]} (PutEvents on the local bus)
 */
const RequestSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('failures') }),
  z.strictObject({ action: z.literal('settle'), ids: z.array(z.string()) }),
  z.strictObject({
    action: z.literal('publish'),
    entries: z
      .array(
        z.strictObject({
          Source: z.string().min(1),
          DetailType: z.string().min(1),
          Detail: z.string().min(2),
          Time: z.iso.datetime(),
        }),
      )
      .max(10),
  }),
]);

export const publisherControl =
  (deps: { readonly bus: EventBus; readonly failed: DynamoDBRecord[] }) =>
  async (body: unknown): Promise<{ statusCode: number; body: unknown }> => {
    const parsed = RequestSchema.safeParse(body);
    if (!parsed.success) {
      return {
        statusCode: 400,
        body: { message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) },
      };
    }
    const request = parsed.data;
    if (request.action === 'failures') {
      return { statusCode: 200, body: { failures: deps.failed.map(failureOf) } };
    }
    if (request.action === 'settle') {
      const ids = new Set(request.ids);
      let settled = 0;
      for (let index = deps.failed.length - 1; index >= 0; index -= 1) {
        const record = deps.failed[index];
        if (record === undefined || !ids.has(failureIdOf(record))) continue;
        deps.failed.splice(index, 1);
        settled += 1;
      }
      return { statusCode: 200, body: { settled } };
    }
    const results = await deps.bus.putEvents(
      request.entries.map((entry) => ({ ...entry, Time: new Date(entry.Time) })),
    );
    return { statusCode: 200, body: { results } };
  };
