import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { GatewayClient } from '../../../gateway/client.ts';
import { GatewayError } from '../../../gateway/errors.ts';
import {
  attachmentOf,
  type ConnectionPool,
  connectionPool,
  type DownloadAnswer,
  downloadUrl,
  HttpTransportFailure,
} from '../../../gateway/transport.ts';
import {
  type ContentUrlPolicy,
  ContentUrlRefusedError,
  forbiddenAddressReason,
} from '../content-url-policy.ts';
import {
  AttachmentDownloadError,
  type AttachmentDownloads,
  type Download,
} from '../fetch-use-case.ts';

export interface GatewayAttachmentDownloadsOptions {
  /** Wait for the headers, and longest pause between body chunks. */
  readonly timeoutMs: number;
  /** Which content URLs may be fetched at all (required: there is no open default). */
  readonly contentUrls: ContentUrlPolicy;
  /** The plain GET used for content URLs; tests may pass their own. */
  readonly fetchUrl?: (url: string, timeoutMs: number) => Promise<DownloadAnswer>;
}

const ERROR_TEXT_BYTES = 300;
/** Hops after the content URL itself; each is checked against the policy before it is taken. */
export const MAX_REDIRECTS = 3;

/** `dns.lookup` with `all: true`, as a promise; tests pass their own resolver. */
export type Resolve = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname, options) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/**
 * A socket `lookup` that resolves the host once, refuses it when ANY of its addresses is not
 * globally reachable (private, loopback, link-local, …; see `forbiddenAddressReason`), and hands
 * the socket exactly the addresses it checked. The connection therefore goes to an address that
 * was checked, and a DNS answer that changes between the check and the connect (rebinding) cannot
 * slip through: there is no second look-up.
 */
export const checkedLookup =
  (resolve: Resolve = systemResolve): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, options).then(
      (addresses) => {
        const refused = addresses
          .map((entry) => ({ entry, reason: forbiddenAddressReason(entry.address) }))
          .find(({ reason }) => reason !== undefined);
        const first = addresses[0];
        if (refused) {
          callback(
            new ContentUrlRefusedError(
              `host ${hostname} resolves to ${refused.entry.address}, a ${refused.reason} address`,
            ),
            '',
          );
        } else if (first === undefined) {
          callback(
            Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
            '',
          );
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(
            null,
            addresses,
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

/** A keep-alive pool for content URLs whose every connection goes through {@link checkedLookup}. */
export const contentUrlAgent = (resolve?: Resolve): ConnectionPool =>
  connectionPool({ maxSockets: 16, lookup: checkedLookup(resolve) });

// One per process (per Lambda container), like the gateway client's pool; made on first use.
let sharedContentUrlAgent: ConnectionPool | undefined;
const sharedAgent = (): ConnectionPool => {
  sharedContentUrlAgent ??= contentUrlAgent();
  return sharedContentUrlAgent;
};

/** {@link downloadUrl} through the shared content-URL pool (address-checked, pinned connects). */
export const downloadContentUrl = (
  url: string,
  timeoutMs: number,
  pool: ConnectionPool = sharedAgent(),
): Promise<DownloadAnswer> => downloadUrl(url, timeoutMs, pool);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Attachment downloads from the gateway: a content URL (a plain, unauthenticated GET, only where
 * the {@link ContentUrlPolicy} allows it, every redirect hop checked again, every connection to a
 * checked address) or the file endpoint through the typed client (bearer token, envelope rules).
 * Every refusal, timeout or broken connection becomes an {@link AttachmentDownloadError}; a URL
 * the policy refuses is one too, with `refused: <reason>`, and is never requested. Anything else
 * (the token provider's own storage failing, say) passes through as ours. Messages never carry
 * the content URL's path or query: it is a bearer credential for 24 h.
 */
export class GatewayAttachmentDownloads implements AttachmentDownloads {
  private readonly fetchUrl: (url: string, timeoutMs: number) => Promise<DownloadAnswer>;

  constructor(
    private readonly gateway: Pick<GatewayClient, 'downloadMoFile'>,
    private readonly options: GatewayAttachmentDownloadsOptions,
  ) {
    this.fetchUrl = options.fetchUrl ?? downloadContentUrl;
  }

  async fromContentUrl(url: string): Promise<Download> {
    let target = this.allowed(url, 'contentUrl');
    for (let hop = 0; ; hop++) {
      const answer = await this.get(target);
      if (!REDIRECTS.has(answer.status)) return this.download(answer);
      discard(answer.stream);
      const location = answer.headers.location;
      if (hop >= MAX_REDIRECTS)
        throw new AttachmentDownloadError('content-url', `more than ${MAX_REDIRECTS} redirects`);
      if (location === undefined || !URL.canParse(location, target.href))
        throw new AttachmentDownloadError(
          'content-url',
          `HTTP ${answer.status} without a usable Location`,
        );
      target = this.allowed(new URL(location, target), `redirect ${hop + 1}`);
    }
  }

  async fromFileEndpoint(moKey: string): Promise<Download> {
    try {
      return await this.gateway.downloadMoFile(moKey);
    } catch (error) {
      if (error instanceof GatewayError) {
        throw new AttachmentDownloadError('file-endpoint', error.message, { cause: error });
      }
      throw error;
    }
  }

  private allowed(url: string | URL, what: string): URL {
    try {
      return this.options.contentUrls.check(url);
    } catch (error) {
      if (!(error instanceof ContentUrlRefusedError)) throw error;
      throw new AttachmentDownloadError('content-url', `refused ${what}: ${error.message}`, {
        cause: error,
        refused: true,
      });
    }
  }

  private async get(url: URL): Promise<DownloadAnswer> {
    try {
      return await this.fetchUrl(url.href, this.options.timeoutMs);
    } catch (error) {
      if (!(error instanceof HttpTransportFailure)) throw error;
      if (error.cause instanceof ContentUrlRefusedError)
        throw new AttachmentDownloadError('content-url', `refused: ${error.cause.message}`, {
          cause: error.cause,
          refused: true,
        });
      throw new AttachmentDownloadError('content-url', error.message, { cause: error });
    }
  }

  private async download(answer: DownloadAnswer): Promise<Download> {
    // The gateway answers refusals (used, expired, unknown) with a JSON envelope.
    const attachment = attachmentOf(answer);
    if (attachment) return attachment;
    const text = await readStart(answer.stream, ERROR_TEXT_BYTES);
    throw new AttachmentDownloadError('content-url', `HTTP ${answer.status}: ${text}`);
  }
}

/** Drops a body that will not be read; its abort is expected, not an error to report. */
const discard = (stream: Readable): void => {
  stream.on('error', () => {});
  stream.destroy();
};

/** The first `limit` bytes of a body as text; the rest is not read (the stream is destroyed). */
const readStart = async (stream: Readable, limit: number): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      const buffer = Buffer.from(chunk);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= limit) break;
    }
  } catch {
    // The explanation is a courtesy; a broken error body changes nothing.
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8').trim();
};
