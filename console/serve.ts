import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { resolveTarget, type Target } from '../ops/target.ts';
import { createConsole } from './app.ts';
import { CONSOLE_PATH } from './http.ts';

type ConsoleHandler = ReturnType<typeof createConsole>['handle'];

/*
 * Where the console runs: mounted on the local run's webhook server (`npm start`, the end-to-end
 * and browser tests), or on a server of its own on 127.0.0.1 for `msgbridge console`.
 */

/**
 * Mounts the console on a running local bridge whose `bridge.json` is in `dataDir`, reading it
 * through the same target the `msgbridge --local DIR` commands use; returns the console's URL.
 */
export const mountConsole = async (
  bridge: {
    readonly mount: (path: string, handler: ConsoleHandler) => void;
    readonly urls: { readonly webhooks: string };
  },
  dataDir: string,
  options: { readonly tpsQuota?: number } = {},
): Promise<string> => {
  const target = await resolveTarget(
    { local: dataDir },
    {
      readFile: (path) => readFile(path, 'utf8'),
      // The run is this process: nothing to probe.
      whyNotRunning: async () => undefined,
    },
  );
  const console = createConsole({ target, ...options });
  bridge.mount(CONSOLE_PATH, console.handle);
  return `${bridge.urls.webhooks}${CONSOLE_PATH}`;
};

export interface ConsoleServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves the console for `target` on 127.0.0.1 only (`port` 0 picks one). */
export const startConsoleServer = async (
  target: Target,
  options: {
    readonly port: number;
    readonly tpsQuota?: number;
    readonly sleep?: (ms: number) => Promise<void>;
  },
): Promise<ConsoleServer> => {
  const console = createConsole({
    target,
    ...(options.tpsQuota === undefined ? {} : { tpsQuota: options.tpsQuota }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
  });
  const server = createServer(
    { requestTimeout: 30_000, headersTimeout: 10_000 },
    (request, response) => {
      const path = new URL(request.url ?? '/', 'http://console.local').pathname;
      if (path === '/') {
        response.writeHead(302, { location: CONSOLE_PATH }).end();
        return;
      }
      if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
        return;
      }
      void console.handle(request, response).catch(() => response.destroy());
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('the console has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}${CONSOLE_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
