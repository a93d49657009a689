/**
 * The local run's data directory (`LOCAL_DATA_DIR`) holds phone numbers and texts (the events,
 * DynamoDB Local's database, the send journal and the clean-stop snapshot) and secrets
 * (`bridge.json`): nobody but its owner may read it, whatever the umask. The directory is made
 * 0700 at every start, also when an earlier run or the user left it wider, and each file the run
 * creates in it is created 0600 by its writer.
 */
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Owner read, write and search: the mode of the data directory and of every folder in it. */
export const OWNER_ONLY_DIRECTORY = 0o700;
/** Owner read and write: the mode every file of the data directory is created with. */
export const OWNER_ONLY_FILE = 0o600;

/**
 * Creates the data directory owner-only, or makes it so, and takes group and other access off
 * everything already in it (files an earlier run created under a wider umask); the owner's own
 * bits are left as they are.
 */
export const ownerOnlyDataDir = async (dataDir: string): Promise<void> => {
  await mkdir(dataDir, { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  await chmod(dataDir, OWNER_ONLY_DIRECTORY);
  await narrowBelow(dataDir);
};

const narrowBelow = async (directory: string): Promise<void> => {
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    // A link is followed by chmod: what it points at may be anything, so it is left alone.
    if (entry.isSymbolicLink()) continue;
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) await chmod(path, mode & 0o700);
    if (entry.isDirectory()) await narrowBelow(path);
  }
};
