/**
 * `DIR/run.lock`: one local run per data directory. Two runs on one directory would share
 * DynamoDB Local's database file and each deliver every report, so `npm start` takes the lock
 * before it starts anything, and a second start is refused however close behind it comes.
 *
 * The lock is a file created exclusively (`O_CREAT | O_EXCL`: of two racing creators exactly one
 * succeeds) holding the owner's pid. A lock whose process is gone (a run killed with SIGKILL) is
 * taken over; since two starts may find the same stale lock, the taker checks a moment later that
 * the lock still names it, and gives way if another start took it meanwhile.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '../ops/bridge-file.ts';
import { ownerOnlyDataDir } from './data-dir.ts';

export const RUN_LOCK_FILE = 'run.lock';

/** Another live process holds the data directory. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `another run is using ${dataDir} (pid ${pid ?? 'unknown'}); stop it first or set LOCAL_DATA_DIR to another directory`,
    );
  }
}

export interface RunLock {
  /** Removes the lock, if it is still this process's. */
  release(): Promise<void>;
}

const holderOf = async (path: string): Promise<number | undefined> => {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

const create = async (path: string, pid: number): Promise<boolean> => {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(String(pid));
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
};

/**
 * Takes the data directory's lock for this process, or throws {@link DataDirInUseError}.
 * `settleMs` is how long a taker of a stale lock waits before checking it still holds it.
 */
export const takeRunLock = async (
  dataDir: string,
  { pid = process.pid, settleMs = 500 }: { readonly pid?: number; readonly settleMs?: number } = {},
): Promise<RunLock> => {
  // The first thing a run does in its directory: make it its owner's only (data-dir.ts).
  await ownerOnlyDataDir(dataDir);
  const path = join(dataDir, RUN_LOCK_FILE);
  const lock: RunLock = {
    release: async () => {
      if ((await holderOf(path)) === pid) await rm(path, { force: true });
    },
  };
  if (await create(path, pid)) return lock;
  const holder = await holderOf(path);
  // A lock being written this very moment has no pid yet: its writer is alive.
  if (holder === undefined || processAlive(holder)) throw new DataDirInUseError(dataDir, holder);
  // Stale: its run is gone. Take it over, then make sure no other start took it at once: the
  // lock is looked at again right before it is removed (another start may have taken it over
  // since), and the taker checks after `settleMs` that it still holds it.
  if ((await holderOf(path)) !== holder) throw new DataDirInUseError(dataDir, await holderOf(path));
  await rm(path, { force: true });
  if (!(await create(path, pid))) throw new DataDirInUseError(dataDir, await holderOf(path));
  await sleep(settleMs);
  const now = await holderOf(path);
  if (now !== pid) throw new DataDirInUseError(dataDir, now);
  return lock;
};
