/**
 * The bridge around a simulator on a manual clock, on the file's dynalite (see
 * dynalite-documents.ts): fresh tables, the event store and receive path, the gateway client, and
 * the report poller's dependencies, whose every wait advances the simulated clock.
 */
import { DynamoDbLease } from '../../functions/commons/dynamodb-lease.ts';
import { DynamoDbEventStore } from '../../functions/event-table/dynamodb-event-store.ts';
import type { PollDeps } from '../../functions/polling/poll-use-case.ts';
import type { ReceiveDeps } from '../../functions/received-items/receive-items.ts';
import type { GatewayClient } from '../../gateway/client.ts';
import type { GatewayCredentials } from '../../gateway/token-api.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import {
  type Simulator,
  type SimulatorOptionsInput,
  startSimulator,
} from '../../simulator/index.ts';
import { cleanups, documents, dynalite } from './dynalite-documents.ts';
import { MemoryPageQuarantine } from './memory-page-quarantine.ts';
import { silent } from './poll-harness.ts';
import { simulatorClient } from './simulator-gateway-client.ts';

let tableCount = 0;

/** A new event table and state table on the file's dynalite, named `<prefix>events-<n>` and `<prefix>state-<n>`. */
export const freshDynaliteTables = async (
  prefix = '',
): Promise<{ eventTable: string; stateTable: string }> => {
  tableCount++;
  const eventTable = `${prefix}events-${tableCount}`;
  const stateTable = `${prefix}state-${tableCount}`;
  await createTables(localDynamoDbClient(dynalite.endpoint), { eventTable, stateTable });
  return { eventTable, stateTable };
};

export interface PollBridge {
  readonly sim: Simulator;
  readonly client: GatewayClient;
  readonly store: DynamoDbEventStore;
  /** The receive path on `store`, dated by the simulated clock. */
  readonly receive: ReceiveDeps;
  readonly eventTable: string;
  readonly stateTable: string;
  /** Poller dependencies on the simulated clock; `sleep` advances it; a run ends 50 s in. */
  deps<G>(gateway: G, overrides?: Partial<PollDeps<G>>): PollDeps<G>;
}

export interface PollBridgeOptions {
  readonly credentials: GatewayCredentials;
  readonly tablePrefix?: string;
  /** The simulator's options, once the tables and the receive path exist (a webhook needs them). */
  readonly simulator: (receive: ReceiveDeps) => Promise<Partial<SimulatorOptionsInput>>;
  /** The lease owner of each poller run; default `run-1`. */
  readonly owner?: (now: number) => string;
}

/** Fresh tables, a simulator on a manual clock (closed after the test), and the bridge around it. */
export const startPollBridge = async (options: PollBridgeOptions): Promise<PollBridge> => {
  const { eventTable, stateTable } = await freshDynaliteTables(options.tablePrefix);
  const store = new DynamoDbEventStore(eventTable, documents);
  // Until the simulator runs, the receive path is dated by the wall clock.
  let now = () => Date.now();
  const receive: ReceiveDeps = {
    store,
    now: () => new Date(now()),
    retentionDays: 35,
    concurrency: 16,
  };
  const sim = await startSimulator({
    ...options.credentials,
    clock: 'manual',
    ...(await options.simulator(receive)),
  });
  cleanups.push(() => sim.close());
  now = () => sim.clock.now();
  const lease = new DynamoDbLease(stateTable, documents, now);
  const quarantine = new MemoryPageQuarantine();
  const owner = options.owner ?? (() => 'run-1');
  return {
    sim,
    client: simulatorClient(sim, options.credentials),
    store,
    receive,
    eventTable,
    stateTable,
    deps: (gateway, overrides = {}) => ({
      gateway,
      receive,
      quarantine,
      lease,
      owner: owner(now()),
      now,
      sleep: (ms) => sim.advance(ms),
      deadline: now() + 50_000,
      logger: silent,
      ...overrides,
    }),
  };
};
