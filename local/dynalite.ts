/**
 * An in-process, in-memory DynamoDB (dynalite) for tests that need conditional writes, queries
 * and batches but no streams, TTL or transactions: it starts in milliseconds and needs no Java.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

interface DynaliteOptions {
  readonly path?: string;
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}

// dynalite ships no type declarations; this is the one call we use (see its index.js: it returns
// a plain `http.Server` whose close() also closes the LevelDB store).
const dynalite = createRequire(import.meta.url)('dynalite') as (options: DynaliteOptions) => Server;

export interface LocalDynalite {
  /** `http://127.0.0.1:<port>`; use {@link localDynamoDbClient} from `dynamodb-local.ts`. */
  readonly endpoint: string;
  /** Closes the server and its in-memory store. Safe to call more than once. */
  stop(): Promise<void>;
}

// dynalite keeps a new table CREATING for 500 ms by default to mimic AWS; locally that is only
// a delay, and the code under test waits for ACTIVE either way.
const TABLE_TRANSITION_MS = 0;

/** Starts dynalite on an ephemeral loopback port, keeping its data in memory. */
export const startDynalite = async (): Promise<LocalDynalite> => {
  const server = dynalite({
    createTableMs: TABLE_TRANSITION_MS,
    deleteTableMs: TABLE_TRANSITION_MS,
    updateTableMs: TABLE_TRANSITION_MS,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    server.close();
    throw new Error(`startDynalite: expected a TCP address, got ${String(address)}`);
  }
  const { port } = address;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve, reject) => {
      // The SDK keeps connections alive; without this close() waits for them to time out.
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
    return stopping;
  };
  return { endpoint: `http://127.0.0.1:${port}`, stop };
};
