import * as z from '../gateway/schemas/zod.ts';
import type { LocalEventBus } from './event-bus.ts';

/** What `msgbridge events replay` posts: lines of the events file and the replay's name. */
const ReplayRequestSchema = z.strictObject({
  replayName: z
    .string()
    .check(
      z.regex(/^[.\-_A-Za-z0-9]{1,64}$/, 'replayName: 1-64 of letters, digits, ".", "-", "_"'),
    ),
  events: z.array(
    z.looseObject({
      time: z.iso.datetime(),
      source: z.string().check(z.minLength(1)),
      'detail-type': z.string().check(z.minLength(1)),
      detail: z.record(z.string(), z.unknown()),
    }),
  ),
});

/** Puts the posted events on the local bus as replayed events; answers how many. */
export const replayOnBus = async (
  bus: LocalEventBus,
  body: unknown,
): Promise<{ statusCode: number; body: unknown }> => {
  const parsed = ReplayRequestSchema.safeParse(body);
  if (!parsed.success) {
    return {
      statusCode: 400,
      body: { message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) },
    };
  }
  const { replayName, events } = parsed.data;
  await bus.replay(
    replayName,
    events.map((event) => ({
      Time: new Date(event.time),
      Source: event.source,
      DetailType: event['detail-type'],
      Detail: JSON.stringify(event.detail),
    })),
  );
  return { statusCode: 200, body: { replayName, replayed: events.length } };
};
