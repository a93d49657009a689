/**
 * The world of the reconcile-status integration tests: one dynalite per file (with its document
 * client) and fresh event and state tables for each test, beside the gateway simulator as
 * reconciliation runs it (a manual clock, reports by polling only) and the client on it.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { GatewayClient } from '../../gateway/client.ts';
import type { GatewayCredentials } from '../../gateway/token-api.ts';
import { localDynamoDbClient } from '../../local/dynamodb-local.ts';
import { createTables } from '../../local/tables.ts';
import type { Simulator } from '../../simulator/index.ts';
import { documents, dynalite, useDynalite } from './dynalite-documents.ts';
import { startPollingSimulator } from './simulator-gateway-client.ts';
import type { SendTables } from './table-send.ts';

/** The file's world, read once its tests run. */
export interface ReconcileTables {
  readonly sim: Simulator;
  readonly client: GatewayClient;
  /** This test's tables. */
  readonly eventTable: string;
  readonly stateTable: string;
  /** Both tables with the document client, as the send use case's support takes them. */
  readonly sendTables: SendTables;
  /** The simulator's clock as a date. */
  now(): Date;
}

let tableNumber = 0;

/** Starts dynalite and the simulator for the file, and creates new tables before each test. */
export const useReconcileTables = (credentials: GatewayCredentials): ReconcileTables => {
  let sim: Simulator | undefined;
  let client: GatewayClient | undefined;
  let tables: { eventTable: string; stateTable: string } | undefined;
  useDynalite();
  beforeAll(async () => {
    ({ sim, client } = await startPollingSimulator(credentials));
  });
  afterAll(async () => {
    await sim?.close();
  });
  beforeEach(async () => {
    tableNumber += 1;
    tables = { eventTable: `events-${tableNumber}`, stateTable: `state-${tableNumber}` };
    await createTables(localDynamoDbClient(dynalite.endpoint), tables);
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the reconcile tables are set up before each test');
    return value;
  };
  return {
    get sim() {
      return started(sim);
    },
    get client() {
      return started(client);
    },
    get eventTable() {
      return started(tables).eventTable;
    },
    get stateTable() {
      return started(tables).stateTable;
    },
    get sendTables() {
      return { documents, ...started(tables) };
    },
    now: () => new Date(started(sim).clock.now()),
  };
};
