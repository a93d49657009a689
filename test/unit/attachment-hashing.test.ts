import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import {
  DownloadLengthMismatchError,
  HashingCounter,
  measureStream,
} from '../../functions/attachments/measured-stream.ts';
import { chunks, PHOTO, SCAN, sha256 } from '../support/attachment-world.ts';

/** Pipes `body` through `counter` into a sink, and returns the chunks that came out. */
const pipeThrough = async (body: Iterable<Buffer>, counter: HashingCounter): Promise<Buffer[]> => {
  const out: Buffer[] = [];
  await pipeline(Readable.from(body), counter, async (source) => {
    for await (const chunk of source as AsyncIterable<Buffer>) out.push(chunk);
  });
  return out;
};

describe('HashingCounter and measureStream', () => {
  it('passes every byte through and measures size and SHA-256', async () => {
    // Prepare
    const bytes = randomBytes(1_000_003);
    const counter = new HashingCounter(bytes.length);

    // Act
    const out = await pipeThrough(chunks(bytes, 65_536), counter);

    // Assess
    expect(Buffer.concat(out).equals(bytes)).toBe(true);
    expect(counter.measurement()).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
  });

  it('measures an empty body', async () => {
    const counter = new HashingCounter(0);
    await pipeline(Readable.from([]), counter, async (source) => {
      for await (const _ of source) throw new Error('no bytes expected');
    });
    expect(counter.measurement()).toEqual({ sizeBytes: 0, sha256: sha256(Buffer.alloc(0)) });
  });

  it('fails when the body is shorter or longer than announced', async () => {
    const drain = (announce: number) => pipeThrough([PHOTO], new HashingCounter(announce));
    await expect(drain(PHOTO.length + 1)).rejects.toBeInstanceOf(DownloadLengthMismatchError);
    await expect(drain(PHOTO.length - 1)).rejects.toThrow(
      `expected ${PHOTO.length - 1} bytes, received ${PHOTO.length}`,
    );
  });

  it('has no measurement before the end', () => {
    expect(() => new HashingCounter().measurement()).toThrow('has not ended');
  });

  it('tells a source failure from a sink that stopped reading', async () => {
    // Prepare
    const broken = new Readable({ read() {} });
    broken.push(Buffer.from('partial'));
    const measuredBroken = measureStream(broken);
    const healthy = Readable.from(chunks(SCAN, 1_000));
    const measuredHealthy = measureStream(healthy);

    // Act
    setImmediate(() => broken.destroy(new Error('socket hang up')));
    const readBroken = (async () => {
      for await (const _ of measuredBroken.stream);
    })();
    for await (const _ of measuredHealthy.stream) break; // the sink gives up after one chunk
    healthy.destroy();

    // Assess
    await expect(readBroken).rejects.toThrow('socket hang up');
    expect(measuredBroken.sourceFailure()?.message).toBe('socket hang up');
    expect(measuredHealthy.sourceFailure()).toBeUndefined();
  });
});
