import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseRunSettings, portInUse, portInUseMessage } from '../../local/run-settings.ts';

describe("npm start's settings", () => {
  it('takes the defaults, and 0 for a port as any free one', () => {
    expect(parseRunSettings({ PORT: '0' })).toEqual({
      ok: true,
      settings: {
        PORT: 0,
        SIMULATOR_PORT: 4010,
        LOCAL_DATA_DIR: '.local',
        TPS_QUOTA: 50,
        SIMULATOR_API_KEY: 'local-key',
        REPORT_DELIVERY: 'webhook',
      },
    });
  });

  it('names each setting it cannot use, what it must be and what it got, all at once', () => {
    // Act
    const parsed = parseRunSettings({
      PORT: 'abc',
      SIMULATOR_PORT: '70000',
      WEBHOOK_SECRET: 'short-secret',
      LOCAL_DATA_DIR: '',
      TPS_QUOTA: '9.5',
      SIMULATOR_API_KEY: 'k'.repeat(21),
      SIMULATOR_API_PASSWORD: '',
      REPORT_DELIVERY: 'push',
    });

    // Assess: no secret's value is printed, only its length.
    expect(parsed).toEqual({
      ok: false,
      problems: [
        'PORT must be a port number (1-65535, or 0 for any free port), got "abc"',
        'SIMULATOR_PORT must be a port number (1-65535, or 0 for any free port), got "70000"',
        'WEBHOOK_SECRET must be at least 16 characters, got 12; leave it unset to have one generated',
        'LOCAL_DATA_DIR must name a directory, got ""; leave it unset for .local',
        'TPS_QUOTA must be a whole number of recipients a second, at least 10 (one 10-recipient request), got "9.5"',
        'SIMULATOR_API_KEY must be 1 to 20 characters, got 21; leave it unset for local-key',
        'SIMULATOR_API_PASSWORD must not be empty; leave it unset to have one generated',
        'REPORT_DELIVERY must be webhook, polling or both, got "push"',
      ],
    });
  });

  it('says which port is taken and offers one above it that is free', async () => {
    // Prepare: two ports held side by side, the second one above the first.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const address = held.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const port = address.port;

    try {
      // Act
      const message = await portInUseMessage('SIMULATOR_PORT', port);

      // Assess
      expect(await portInUse(port)).toBe(true);
      const offered = Number(/SIMULATOR_PORT=(\d+) npm start/.exec(message)?.[1]);
      expect(offered).toBeGreaterThan(port);
      expect(message).toBe(
        `SIMULATOR_PORT ${port} is already in use (by another program, or an npm start with another LOCAL_DATA_DIR): choose another, e.g. SIMULATOR_PORT=${offered} npm start, or stop what listens on it`,
      );
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });
});
