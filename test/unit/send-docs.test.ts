import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendMessageJsonSchema } from '../../functions/send-contract/queue-message-json-schema.ts';
import { SEND_MESSAGE_EXAMPLES } from '../../producer/examples.ts';
import {
  renderSendingDocs,
  SEND_MESSAGE_SCHEMA_PATH,
  SENDING_DOC_PATH,
} from '../../scripts/sending-docs.ts';

const root = join(import.meta.dirname, '../..');

describe('the sending documentation', () => {
  it('is committed exactly as generated (run `npx tsx scripts/generate-sending-docs.ts`)', () => {
    // Act
    const files = renderSendingDocs();

    // Assess
    expect(Object.keys(files).sort()).toEqual([SENDING_DOC_PATH, SEND_MESSAGE_SCHEMA_PATH].sort());
    for (const [path, content] of Object.entries(files)) {
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(content);
    }
  });

  it('publishes the JSON Schema of the contract', () => {
    const files = renderSendingDocs();

    expect(JSON.parse(files[SEND_MESSAGE_SCHEMA_PATH] ?? '')).toEqual(sendMessageJsonSchema());
  });

  it('shows every example and points to the JSON Schema file', () => {
    const markdown = renderSendingDocs()[SENDING_DOC_PATH] ?? '';

    for (const example of SEND_MESSAGE_EXAMPLES) {
      expect(markdown).toContain(`### ${example.title}`);
      expect(markdown).toContain(JSON.stringify(example.message, null, 2));
    }
    expect(markdown).toContain('(schemas/send-message.schema.json)');
  });
});
