/**
 * `bridge.json` holds the webhook secret (in the webhook URLs), the simulator's password and the
 * control routes' token: only its owner may read it, also when an earlier run left it readable.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBridgeFile } from '../../local/bridge-file.ts';
import { BRIDGE_FILE } from '../../ops/bridge-file.ts';
import { useTempDirs } from '../support/temp-dirs.ts';

const freshDir = useTempDirs('bridge-file');

const bridge = {
  urls: { reportWebhook: 'http://127.0.0.1:1/webhooks/secret/report', controlToken: 'token' },
  sim: {
    hosts: { api: 'http://127.0.0.1:2', send: 'http://127.0.0.1:2', mnt: 'http://127.0.0.1:2' },
  },
  tables: { events: 'events', state: 'state' },
} as unknown as Parameters<typeof writeBridgeFile>[1];

describe('bridge.json', () => {
  it.each([
    ['a new file', undefined],
    ['a file an earlier run left readable by everyone', 0o644],
  ])('is written for its owner only: %s', async (_, earlierMode) => {
    const dir = freshDir();
    if (earlierMode !== undefined)
      writeFileSync(join(dir, BRIDGE_FILE), '{}', { mode: earlierMode });

    const path = await writeBridgeFile(dir, bridge, { apiKey: 'key', apiPassword: 'password' });

    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
