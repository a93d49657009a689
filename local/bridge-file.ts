/** Writing `DIR/bridge.json` for a running local bridge (its reader and shape: `ops/bridge-file.ts`). */
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BRIDGE_FILE, type BridgeFile } from '../ops/bridge-file.ts';
import type { LocalBridge } from './bridge.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './dynamodb-local.ts';

/** What `bridge.json` holds for a running bridge and the simulator credentials it uses. */
export const bridgeFileContent = (
  bridge: Pick<LocalBridge, 'urls' | 'sim' | 'tables'>,
  credentials: { readonly apiKey: string; readonly apiPassword: string },
): BridgeFile => ({
  ...bridge.urls,
  gatewayHosts: bridge.sim.hosts,
  apiKey: credentials.apiKey,
  apiPassword: credentials.apiPassword,
  tables: { ...bridge.tables },
  region: LOCAL_REGION,
  // Field by field: the SDK marks credential objects it has used with extra properties.
  credentials: {
    accessKeyId: LOCAL_CREDENTIALS.accessKeyId,
    secretAccessKey: LOCAL_CREDENTIALS.secretAccessKey,
  },
  pid: process.pid,
});

/** Writes `dataDir/bridge.json` for a running bridge; returns its path. */
export const writeBridgeFile = async (
  dataDir: string,
  bridge: Pick<LocalBridge, 'urls' | 'sim' | 'tables'>,
  credentials: { readonly apiKey: string; readonly apiPassword: string },
): Promise<string> => {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, BRIDGE_FILE);
  // It holds the webhook secret, the simulator's password and the control token: owner only.
  // `mode` applies when the file is created; chmod covers a file left by an earlier run.
  await writeFile(path, `${JSON.stringify(bridgeFileContent(bridge, credentials), null, 2)}\n`, {
    mode: 0o600,
  });
  await chmod(path, 0o600);
  return path;
};

/**
 * Removes `dataDir/bridge.json` if this process wrote it, so that nothing points at a run that has
 * stopped. A file of another process (a second run in the same directory) is left alone.
 */
export const removeBridgeFile = async (dataDir: string): Promise<void> => {
  const path = join(dataDir, BRIDGE_FILE);
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  let pid: unknown;
  try {
    pid = (JSON.parse(text) as { pid?: unknown }).pid;
  } catch {
    return;
  }
  if (pid === process.pid) await rm(path, { force: true });
};
