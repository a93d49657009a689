import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

/**
 * A body as its `Content-Encoding` header says it was encoded, decoded: HTTP clients may compress
 * a request body with gzip or deflate. The decoded body is limited to `maxBytes`, so a small
 * compressed body cannot expand past the size the receiver accepts.
 */
export type DecodedBody =
  | { readonly kind: 'decoded'; readonly body: string | Uint8Array | null | undefined }
  | { readonly kind: 'too-large'; readonly bytes: number }
  | { readonly kind: 'unreadable'; readonly reason: string };

const ERR_BUFFER_TOO_LARGE = 'ERR_BUFFER_TOO_LARGE';

const decoders: Readonly<Record<string, (bytes: Buffer, maxOutputLength: number) => Buffer>> = {
  gzip: (bytes, maxOutputLength) => gunzipSync(bytes, { maxOutputLength }),
  'x-gzip': (bytes, maxOutputLength) => gunzipSync(bytes, { maxOutputLength }),
  // RFC 9110's deflate is the zlib format; some clients send raw deflate: both are read.
  deflate: (bytes, maxOutputLength) => {
    try {
      return inflateSync(bytes, { maxOutputLength });
    } catch (error) {
      if ((error as { code?: string }).code === ERR_BUFFER_TOO_LARGE) throw error;
      return inflateRawSync(bytes, { maxOutputLength });
    }
  },
};

export const decodeContent = (
  body: string | Uint8Array | null | undefined,
  contentEncoding: string | undefined,
  maxBytes: number,
): DecodedBody => {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || body === null || body === undefined || body.length === 0)
    return { kind: 'decoded', body };
  const unknown = codings.filter((coding) => !(coding in decoders));
  if (unknown.length > 0)
    return {
      kind: 'unreadable',
      reason: `Content-Encoding ${unknown.join(', ')} is not accepted (gzip and deflate are)`,
    };
  let bytes: Buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const limit = Number.isFinite(maxBytes) ? maxBytes : 2 ** 31 - 1;
  // Codings are listed in the order they were applied: undo them from the last.
  for (const coding of [...codings].reverse()) {
    try {
      bytes = (decoders[coding] as (typeof decoders)[string])(bytes, limit);
    } catch (error) {
      if ((error as { code?: string }).code === ERR_BUFFER_TOO_LARGE)
        return { kind: 'too-large', bytes: limit + 1 };
      return {
        kind: 'unreadable',
        reason: `Content-Encoding ${coding} could not be decoded: ${(error as Error).message}`,
      };
    }
  }
  return { kind: 'decoded', body: new Uint8Array(bytes) };
};
