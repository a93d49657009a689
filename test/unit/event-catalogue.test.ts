import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEventDetail, eventIdFor } from '../../functions/catalogue/envelope.ts';
import { EVENT_TYPES, eventDetailSchema } from '../../functions/catalogue/index.ts';
import { renderEventCatalogue } from '../../scripts/event-catalogue-docs.ts';

const root = join(import.meta.dirname, '../..');

describe('the event catalogue', () => {
  it('is committed exactly as generated from the schemas (run `npm run docs:events`)', () => {
    for (const [path, content] of Object.entries(renderEventCatalogue())) {
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(content);
    }
  });

  it('has a JSON Schema per detail-type that requires metadata and data', () => {
    const files = renderEventCatalogue();
    const schemas = Object.entries(files).filter(([path]) => path.endsWith('.schema.json'));

    expect(schemas).toHaveLength(Object.keys(EVENT_TYPES).length);
    for (const [, content] of schemas) {
      const schema = JSON.parse(content);
      expect(schema.required).toEqual(['metadata', 'data']);
      expect(schema.properties.metadata.required).toEqual(
        expect.arrayContaining([
          'id',
          'type',
          'version',
          'occurredAt',
          'receivedAt',
          'via',
          'idempotencyKey',
        ]),
      );
    }
  });
});

describe('event ids', () => {
  it('are stable UUIDs derived from the idempotency key', () => {
    const id = eventIdFor('report:M1:10000:SMS');

    expect(id).toBe(eventIdFor('report:M1:10000:SMS'));
    expect(id).not.toBe(eventIdFor('report:M1:10000:MMS'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('build details that satisfy the published schema', () => {
    const detail = buildEventDetail(EVENT_TYPES.unrecognisedBody, {
      idempotencyKey: 'unrecognised:mo:abc',
      occurredAt: '2026-11-21T00:00:00.000Z',
      receivedAt: '2026-11-21T00:00:00.000Z',
      via: 'webhook',
      data: {
        webhook: 'mo',
        bodySha256: 'abc',
        topLevelKeys: ['x'],
        body: '{"x":1}',
        truncated: false,
      },
    });

    expect(eventDetailSchema(EVENT_TYPES.unrecognisedBody.data).parse(detail)).toEqual(detail);
    expect(detail.metadata.type).toBe('Unrecognised Inbound Body Received');
  });

  it('refuse data that breaks the contract', () => {
    expect(() =>
      buildEventDetail(EVENT_TYPES.quarantinedItem, {
        idempotencyKey: 'q',
        occurredAt: '2026-11-21T00:00:00.000Z',
        receivedAt: '2026-11-21T00:00:00.000Z',
        via: 'webhook',
        data: {
          webhook: 'sms' as 'mo',
          reason: 'r',
          index: null,
          bodySha256: 'x',
          raw: '',
          truncated: false,
        },
      }),
    ).toThrow();
  });
});
