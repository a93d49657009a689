import { createHash } from 'node:crypto';
import { type Readable, Transform, type TransformCallback } from 'node:stream';

/** The download ended with another number of bytes than its `Content-Length` announced. */
export class DownloadLengthMismatchError extends Error {
  override readonly name = 'DownloadLengthMismatchError';
  constructor(
    readonly expectedBytes: number,
    readonly receivedBytes: number,
  ) {
    super(`expected ${expectedBytes} bytes, received ${receivedBytes}`);
  }
}

/** Size and SHA-256 (hex) of the bytes that went through a {@link HashingCounter}. */
export interface Measurement {
  readonly sizeBytes: number;
  readonly sha256: string;
}

/**
 * A pass-through stream that hashes (SHA-256) and counts every byte on its way, so a download can
 * be stored and measured in one pass without ever being held whole. With `expectedBytes` it fails
 * the stream, before its end, when the source delivered more or fewer bytes: a truncated download
 * must never be stored as if it were the file.
 */
export class HashingCounter extends Transform {
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private digest: string | undefined;

  constructor(private readonly expectedBytes?: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (this.expectedBytes !== undefined && this.bytes > this.expectedBytes) {
      done(new DownloadLengthMismatchError(this.expectedBytes, this.bytes));
      return;
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.expectedBytes !== undefined && this.bytes !== this.expectedBytes) {
      done(new DownloadLengthMismatchError(this.expectedBytes, this.bytes));
      return;
    }
    this.digest = this.hash.digest('hex');
    done();
  }

  /** Bytes seen so far. */
  get byteCount(): number {
    return this.bytes;
  }

  /** The measurement; only once the stream has ended. */
  measurement(): Measurement {
    if (this.digest === undefined) throw new Error('the stream has not ended yet');
    return { sizeBytes: this.bytes, sha256: this.digest };
  }
}

/** A source stream piped through a {@link HashingCounter}, with the source's failure kept apart. */
export interface MeasuredStream {
  /** What the sink reads. */
  readonly stream: HashingCounter;
  /**
   * The error of the source (or a length mismatch), if reading it failed. A sink that failed
   * while this is `undefined` failed on its own account.
   */
  sourceFailure(): Error | undefined;
}

/**
 * Pipes `source` through a {@link HashingCounter}. A source error ends the counter with the same
 * error, so the sink (an S3 upload) fails instead of storing a truncated file; the sink closing
 * early only unpipes the source (the caller destroys it), which is not recorded as a source error.
 */
export const measureStream = (source: Readable, expectedBytes?: number): MeasuredStream => {
  const counter = new HashingCounter(expectedBytes);
  let failure: Error | undefined;
  source.on('error', (error) => {
    failure ??= error;
    counter.destroy(error);
  });
  // Of the counter's own errors only the length check is the source's fault: a sink that stops
  // reading early destroys the counter too (an `AbortError`), and that failure is the sink's.
  counter.on('error', (error) => {
    if (error instanceof DownloadLengthMismatchError) failure ??= error;
  });
  source.pipe(counter);
  return { stream: counter, sourceFailure: () => failure };
};
