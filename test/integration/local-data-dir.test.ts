/**
 * The local run's data directory is its owner's only (local/data-dir.ts): made 0700 at a start
 * even when it was wider, and what an earlier run left in it loses group and other access, the
 * owner's own bits kept.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownerOnlyDataDir } from '../../local/data-dir.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('ownerOnlyDataDir', () => {
  it('creates a missing directory, parents included, 0700 whatever the umask', async () => {
    const root = mkdtempSync(join(tmpdir(), 'msgbridge-dir-'));
    made.push(root);
    const previous = process.umask(0o022);
    try {
      await ownerOnlyDataDir(join(root, 'a', 'data'));
    } finally {
      process.umask(previous);
    }
    expect(modeOf(join(root, 'a', 'data'))).toBe('700');
  });

  it('narrows a wider directory and what is in it, keeping the owner bits and links alone', async () => {
    // Prepare: what an earlier run under umask 022 (or a user) left.
    const dir = mkdtempSync(join(tmpdir(), 'msgbridge-dir-'));
    made.push(dir);
    const outside = mkdtempSync(join(tmpdir(), 'msgbridge-outside-'));
    made.push(outside);
    mkdirSync(join(dir, 'dynamodb'));
    writeFileSync(join(dir, 'events.jsonl'), '{}\n');
    writeFileSync(join(dir, 'dynamodb', 'shared-local-instance.db'), '');
    writeFileSync(join(dir, 'tool'), '');
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'dynamodb'), 0o775);
    chmodSync(join(dir, 'events.jsonl'), 0o644);
    chmodSync(join(dir, 'dynamodb', 'shared-local-instance.db'), 0o666);
    chmodSync(join(dir, 'tool'), 0o755);
    chmodSync(outside, 0o755);
    symlinkSync(outside, join(dir, 'elsewhere'));

    // Act
    await ownerOnlyDataDir(dir);

    // Assess
    expect(modeOf(dir)).toBe('700');
    expect(modeOf(join(dir, 'dynamodb'))).toBe('700');
    expect(modeOf(join(dir, 'events.jsonl'))).toBe('600');
    expect(modeOf(join(dir, 'dynamodb', 'shared-local-instance.db'))).toBe('600');
    expect(modeOf(join(dir, 'tool'))).toBe('700');
    expect(modeOf(outside)).toBe('755');
  });
});
