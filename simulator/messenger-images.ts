import { createHash } from 'node:crypto';
import busboy from 'busboy';
import {
  characters,
  firstIssue,
  HIGHLIGHT_LIMITS,
  TemplateCreateBody,
} from './messenger-requests.ts';
import type { SimRequest } from './router.ts';
import type * as z from './zod.ts';

/*
 * The multipart template create of spec 02 §4.4: parts `reqBody` (required), `image` and
 * `itemHighlightImage` (binary, optional). The spec names no image format and no size. The
 * simulator's choice, so that a mislabelled or oversized file does not pass unnoticed: JPEG or
 * PNG (the formats notification-template images are made in), at most 500 KB (512,000 bytes),
 * not empty, the part's declared type matching both the file's signature bytes and its name's
 * extension. `reqBody` may come as a text field or as a file part holding JSON.
 */

export type TemplateImagePart = 'image' | 'itemHighlightImage';
export const IMAGE_PARTS: readonly TemplateImagePart[] = ['image', 'itemHighlightImage'];

const IMAGE_MAX_BYTES = 500 * 1024;
const FORMATS: Readonly<
  Record<string, { readonly extensions: readonly string[]; readonly signature: readonly number[] }>
> = {
  'image/jpeg': { extensions: ['jpg', 'jpeg'], signature: [0xff, 0xd8, 0xff] },
  'image/png': { extensions: ['png'], signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
};

/** One image part as received. */
export interface ReceivedImage {
  readonly fileName: string;
  readonly contentType: string;
  readonly data: Buffer;
}

/** An image part as received with a template create. */
export interface StoredImage {
  readonly fileName: string;
  readonly contentType: string;
  readonly size: number;
  /** Hex SHA-256 of the bytes, so a test can tell the whole file arrived. */
  readonly sha256: string;
  readonly data: Buffer;
}

/** A template create, JSON or multipart, after every check. */
export interface TemplateCreateParts {
  readonly reqBody: z.output<typeof TemplateCreateBody>;
  readonly image?: ReceivedImage;
  readonly itemHighlightImage?: ReceivedImage;
}

/** A refusal: `21000` for a body that cannot be read, `21001` for a field or part. */
export interface PartsFailure {
  readonly code: '21000' | '21001';
  readonly message: string;
}

const refusal = (code: PartsFailure['code'], message: string): PartsFailure => ({ code, message });

/** The first problem of one image part, as `part.field: problem`; `undefined` when it is fine. */
const imageProblem = (part: TemplateImagePart, image: ReceivedImage): string | undefined => {
  const format = FORMATS[image.contentType];
  if (format === undefined) {
    return `${part}.contentType: must be one of ${Object.keys(FORMATS).join(', ')}, got ${image.contentType}`;
  }
  const size = image.data.byteLength;
  if (size === 0) return `${part}.data: image is empty`;
  if (size > IMAGE_MAX_BYTES) return `${part}.data: image is ${size} bytes; max ${IMAGE_MAX_BYTES}`;
  if (!format.signature.every((byte, index) => image.data[index] === byte)) {
    return `${part}.data: bytes are not ${image.contentType} (file signature does not match)`;
  }
  const extension = image.fileName.toLowerCase().split('.').pop() ?? '';
  if (!format.extensions.includes(extension)) {
    return `${part}.fileName: must end in .${format.extensions.join(' or .')} for ${image.contentType}`;
  }
  return undefined;
};

/**
 * Checks the create's `reqBody` and images together: with a thumbnail (`itemHighlightImage`)
 * the highlight title and description get their shorter limits (§4.4).
 */
export const checkTemplateCreate = (parts: {
  readonly reqBody?: unknown;
  readonly image?: ReceivedImage;
  readonly itemHighlightImage?: ReceivedImage;
}): TemplateCreateParts | PartsFailure => {
  const parsed = TemplateCreateBody.safeParse(parts.reqBody);
  const prefix =
    parts.image === undefined && parts.itemHighlightImage === undefined ? '' : 'reqBody.';
  if (!parsed.success) return refusal('21001', `${prefix}${firstIssue(parsed.error)}`);
  for (const part of IMAGE_PARTS) {
    const image = parts[part];
    const problem = image === undefined ? undefined : imageProblem(part, image);
    if (problem !== undefined) return refusal('21001', problem);
  }
  if (parts.itemHighlightImage !== undefined) {
    for (const field of ['itemHighlightTitle', 'itemHighlightDescription'] as const) {
      const length = characters(parsed.data[field] ?? '');
      const max = HIGHLIGHT_LIMITS[field].withThumbnail;
      if (length > max) {
        return refusal(
          '21001',
          `reqBody.${field}: is ${length} characters; max ${max} with a thumbnail image (itemHighlightImage)`,
        );
      }
    }
  }
  return {
    reqBody: parsed.data,
    ...(parts.image === undefined ? {} : { image: parts.image }),
    ...(parts.itemHighlightImage === undefined
      ? {}
      : { itemHighlightImage: parts.itemHighlightImage }),
  };
};

/** The raw parts of a multipart body before the checks. */
interface RawParts {
  reqBody?: unknown;
  image?: ReceivedImage;
  itemHighlightImage?: ReceivedImage;
}

/**
 * Reads `reqBody` (a text field or a file part holding JSON) and the image file parts. Answers
 * the failure instead: `21000` for an unreadable body or a `reqBody` that is not JSON, `21001` for
 * an unknown, repeated or missing part, or an image sent as a text field.
 */
export const readTemplateParts = (request: SimRequest): Promise<RawParts | PartsFailure> =>
  new Promise((resolve) => {
    let problem: PartsFailure | undefined;
    const refuse = (message: string) => {
      problem ??= refusal('21001', message);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers });
    } catch (error) {
      resolve(refusal('21000', `multipart body: ${(error as Error).message}`));
      return;
    }
    const seen = new Set<string>();
    let reqBodyText: string | undefined;
    const parts: RawParts = {};
    const once = (name: string): boolean => {
      if (seen.has(name)) refuse(`${name}: part given twice`);
      seen.add(name);
      return problem === undefined;
    };
    parser.on('field', (name, value) => {
      if (name === 'reqBody') {
        if (once(name)) reqBodyText = value;
      } else if ((IMAGE_PARTS as readonly string[]).includes(name)) {
        refuse(`${name}: must be a file part`);
      } else {
        refuse(`${name}: unknown part`);
      }
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        if (name === 'reqBody') {
          if (once(name)) reqBodyText = data.toString('utf8');
        } else if (name === 'image' || name === 'itemHighlightImage') {
          if (once(name))
            parts[name] = { fileName: info.filename ?? '', contentType: info.mimeType, data };
        } else {
          refuse(`${name}: unknown part`);
        }
      });
    });
    parser.on('error', (error) =>
      resolve(refusal('21000', `multipart body: ${(error as Error).message}`)),
    );
    parser.on('close', () => {
      if (problem) return resolve(problem);
      if (reqBodyText === undefined) return resolve(refusal('21001', 'reqBody: part is missing'));
      try {
        resolve({ ...parts, reqBody: JSON.parse(reqBodyText) });
      } catch {
        resolve(refusal('21000', 'reqBody: part is not valid JSON'));
      }
    });
    parser.end(request.body);
  });

export const isPartsFailure = (value: object): value is PartsFailure =>
  'code' in value && 'message' in value;

/** The images of a create as the simulator keeps them, with their size and SHA-256. */
export const storedImages = (
  parts: TemplateCreateParts,
): Readonly<Partial<Record<TemplateImagePart, StoredImage>>> =>
  Object.fromEntries(
    IMAGE_PARTS.flatMap((part) => {
      const image = parts[part];
      if (image === undefined) return [];
      const data = Buffer.from(image.data);
      const stored: StoredImage = {
        fileName: image.fileName,
        contentType: image.contentType,
        size: data.byteLength,
        sha256: createHash('sha256').update(data).digest('hex'),
        data,
      };
      return [[part, stored]];
    }),
  );
