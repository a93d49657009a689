import type { Readable } from 'node:stream';
import {
  AttachmentDownloadError,
  type AttachmentDownloads,
  type Download,
} from '../../attachments/fetch-attachments.ts';
import { GatewayError } from '../gateway/errors.ts';
import type { GatewayClient } from '../gateway/gateway-client.ts';
import { type DownloadAnswer, downloadUrl, HttpTransportFailure } from '../gateway/http.ts';

export interface GatewayAttachmentDownloadsOptions {
  /** Wait for the headers, and longest pause between body chunks. */
  readonly timeoutMs: number;
  /** The plain GET used for content URLs; tests may pass their own. */
  readonly fetchUrl?: (url: string, timeoutMs: number) => Promise<DownloadAnswer>;
}

const ERROR_TEXT_BYTES = 300;

/**
 * Attachment downloads from the gateway: a content URL (a plain, unauthenticated GET) or the
 * file endpoint through the typed client (bearer token, envelope rules). Every refusal, timeout
 * or broken connection becomes an {@link AttachmentDownloadError}; anything else (the token
 * provider's own storage failing, say) passes through as ours. Messages never carry the content
 * URL: it is a bearer credential for 24 h.
 */
export class GatewayAttachmentDownloads implements AttachmentDownloads {
  private readonly fetchUrl: (url: string, timeoutMs: number) => Promise<DownloadAnswer>;

  constructor(
    private readonly gateway: Pick<GatewayClient, 'downloadMoFile'>,
    private readonly options: GatewayAttachmentDownloadsOptions,
  ) {
    this.fetchUrl = options.fetchUrl ?? downloadUrl;
  }

  async fromContentUrl(url: string): Promise<Download> {
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
      throw new AttachmentDownloadError('content-url', 'contentUrl is not an absolute http(s) URL');
    }
    let answer: DownloadAnswer;
    try {
      answer = await this.fetchUrl(url, this.options.timeoutMs);
    } catch (error) {
      if (error instanceof HttpTransportFailure) {
        throw new AttachmentDownloadError('content-url', error.message, { cause: error });
      }
      throw error;
    }
    const contentType = answer.headers['content-type'] ?? 'application/octet-stream';
    // The gateway answers refusals (used, expired, unknown) with a JSON envelope.
    if (
      answer.status >= 200 &&
      answer.status < 300 &&
      !contentType.startsWith('application/json')
    ) {
      const length = contentLength(answer.headers['content-length']);
      return {
        contentType,
        ...(length === undefined ? {} : { contentLength: length }),
        body: answer.stream,
      };
    }
    const text = await readStart(answer.stream, ERROR_TEXT_BYTES);
    throw new AttachmentDownloadError('content-url', `HTTP ${answer.status}: ${text}`);
  }

  async fromFileEndpoint(moKey: string, index: number): Promise<Download> {
    try {
      return await this.gateway.downloadMoFile(moKey, { index });
    } catch (error) {
      if (error instanceof GatewayError) {
        throw new AttachmentDownloadError('file-endpoint', error.message, { cause: error });
      }
      throw error;
    }
  }
}

const contentLength = (header: string | undefined): number | undefined => {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header);
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
