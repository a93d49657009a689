import { describe, expect, it, vi } from 'vitest';
import { built } from '../support/counted-zod.ts';

// Counts the object schemas zod builds, so the test sees which channels' schemas exist.
vi.mock('zod/mini', async (importOriginal) =>
  (await import('../support/counted-zod.ts')).countedZod(importOriginal),
);

/** One message per channel and RCS variant; invalid bodies, since any body builds the schemas. */
const MESSAGES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['sms', { channel: 'sms' }],
  ['mms', { channel: 'mms' }],
  ['rcs v1', { channel: 'rcs', variant: 'v1' }],
  ['rcs v1.1', { channel: 'rcs', variant: 'v1.1' }],
  ['rcs integrated', { channel: 'rcs', variant: 'integrated' }],
  ['rcs-reply', { channel: 'rcs-reply' }],
  ['push', { channel: 'push' }],
  ['messenger-notice', { channel: 'messenger-notice' }],
  ['brand-template', { channel: 'brand-template' }],
  ['brand-free', { channel: 'brand-free' }],
];

describe('the send schemas, imported by send-messages', () => {
  it("builds a channel's envelope and request schema on its first message only, once", async () => {
    // Prepare: the gateway's shared pieces (recipients, reservation, fallbacks) are built at import.
    await import('../../gateway/schemas/common.ts');
    await import('../../gateway/schemas/cp949-text.ts');
    await import('../../gateway/schemas/lenient.ts');
    const before = built.objects;
    const { parseSendMessage } = await import(
      '../../functions/send-contract/queue-message-parsing.ts'
    );
    const now = new Date('2026-12-07T00:00:00Z');
    const atImport = built.objects - before;

    // Act: each message twice; the count of object schemas built by each parse.
    const perChannel = MESSAGES.map(([name, message]) => {
      const start = built.objects;
      const first = parseSendMessage(message, { now });
      const afterFirst = built.objects;
      const second = parseSendMessage(message, { now });
      return {
        name,
        first: afterFirst - start,
        second: built.objects - afterFirst,
        same: JSON.stringify(first) === JSON.stringify(second),
      };
    });

    // Assess: the import builds none; each channel's first message builds its own schemas (none
    // of which an earlier channel had built), a second message nothing, with the same result.
    expect(atImport).toBe(0);
    for (const channel of perChannel) {
      expect(channel.first, `${channel.name}: first message`).toBeGreaterThan(0);
      expect(channel.second, `${channel.name}: second message`).toBe(0);
      expect(channel.same, `${channel.name}: same problems`).toBe(true);
    }
  });
});
