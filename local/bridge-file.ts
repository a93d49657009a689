/**
 * `DIR/bridge.json`: where a running local bridge is and how to reach each part of it. `npm start`
 * (and the end-to-end tests) write it; `msgbridge --local DIR` reads it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { GatewayHostsSchema } from '../functions/commons/gateway/settings.ts';
import type { LocalBridge } from './bridge.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './dynamodb-local.ts';

export const BRIDGE_FILE = 'bridge.json';

export const BridgeFileSchema = z.looseObject({
  reportWebhook: z.string(),
  moWebhook: z.string(),
  /** The webhook server; also serves the loopback-only control routes (`/_bridge/…`). */
  webhooks: z.url(),
  simulator: z.url(),
  gatewayHosts: GatewayHostsSchema,
  apiKey: z.string().min(1),
  apiPassword: z.string().min(1),
  dynamodb: z.url(),
  sqs: z.url(),
  sendQueue: z.url(),
  sendDlq: z.url(),
  s3: z.url(),
  attachmentBucket: z.string(),
  eventsFile: z.string().min(1),
  tables: z.strictObject({ events: z.string().min(1), state: z.string().min(1) }),
  region: z.string().min(1),
  /** The dummy credentials the local emulators accept. */
  credentials: z.object({ accessKeyId: z.string(), secretAccessKey: z.string() }),
});
export type BridgeFile = z.infer<typeof BridgeFileSchema>;

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
});

/** Writes `dataDir/bridge.json` for a running bridge; returns its path. */
export const writeBridgeFile = async (
  dataDir: string,
  bridge: Pick<LocalBridge, 'urls' | 'sim' | 'tables'>,
  credentials: { readonly apiKey: string; readonly apiPassword: string },
): Promise<string> => {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, BRIDGE_FILE);
  await writeFile(path, `${JSON.stringify(bridgeFileContent(bridge, credentials), null, 2)}\n`);
  return path;
};
