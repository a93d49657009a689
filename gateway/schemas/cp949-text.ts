import { cp949ByteLength, cp949UnencodableCharacters } from '../../protocol/cp949.ts';
import {
  FALLBACK_CHANNELS,
  type FallbackChannel,
  MAX_MMS_FILES,
  MMS_MAX_BYTES,
  MMS_TITLE_MAX_BYTES,
  SMS_MAX_BYTES,
} from './common.ts';
import * as z from './zod.ts';

/*
 * The CP949 text rules of SMS and MMS, and the fallback messages (sent as SMS or MMS) that follow
 * them, apart from the other shared schema pieces: they need
 * iconv-lite's encoding tables (about half a megabyte bundled), which only the code that builds
 * or checks send requests should carry — not the webhook receivers or the publisher.
 */

const describeCharacters = (characters: string[]): string =>
  characters
    .map((c) => `"${c}" (U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')})`)
    .join(', ');

/**
 * Issues for SMS/MMS text: the carriers count CP949 bytes (Hangul 2 bytes each) and refuse
 * characters CP949 cannot encode, such as most emoji (spec 01 §8; field notes, "Sending").
 * Template variables are counted as written: filling them in is checked by another layer.
 */
export const cp949TextIssues = (text: string, maxBytes: number, channel: string): string[] => {
  const issues: string[] = [];
  const unencodable = cp949UnencodableCharacters(text);
  if (unencodable.length > 0) {
    issues.push(
      `${channel} cannot carry characters outside CP949: ${describeCharacters(unencodable)}`,
    );
  }
  const bytes = cp949ByteLength(text);
  if (bytes > maxBytes) {
    issues.push(
      `is ${bytes} bytes counted as CP949 (Hangul 2 bytes each); ${channel} allows ${maxBytes}`,
    );
  }
  return issues;
};

/** A string with the CP949 rules of {@link cp949TextIssues}. */
export const cp949TextSchema = (maxBytes: number, channel: string) =>
  z.string().check(
    z.minLength(1),
    z.superRefine((value, ctx) => {
      for (const message of cp949TextIssues(value, maxBytes, channel)) {
        ctx.addIssue({ code: 'custom', message });
      }
    }),
  );

/**
 * A fallback message (spec 01 §2, FbInfo). It is sent as SMS or MMS, so the SMS/MMS byte and
 * character rules apply to its text; an MMS fallback needs a title; `fileId` and `fileIdLst`
 * are alternatives.
 */
export const FbInfoSchema = z
  .strictObject({
    ch: z.enum(FALLBACK_CHANNELS, { error: 'fallback ch must be SMS or MMS' }),
    title: z.optional(z.string().check(z.minLength(1))),
    msg: z.string().check(z.minLength(1)),
    fileId: z.optional(z.string().check(z.minLength(1))),
    fileIdLst: z.optional(
      z
        .array(z.string().check(z.minLength(1)))
        .check(z.maxLength(MAX_MMS_FILES, `at most ${MAX_MMS_FILES} file ids`)),
    ),
  })
  .check(
    z.superRefine((fallback, ctx) => {
      const isMms = fallback.ch === 'MMS';
      for (const message of cp949TextIssues(
        fallback.msg,
        isMms ? MMS_MAX_BYTES : SMS_MAX_BYTES,
        fallback.ch,
      )) {
        ctx.addIssue({ code: 'custom', path: ['msg'], message });
      }
      if (isMms && fallback.title === undefined) {
        ctx.addIssue({ code: 'custom', path: ['title'], message: 'an MMS fallback needs a title' });
      }
      if (fallback.title !== undefined) {
        for (const message of cp949TextIssues(fallback.title, MMS_TITLE_MAX_BYTES, 'MMS title')) {
          ctx.addIssue({ code: 'custom', path: ['title'], message });
        }
      }
      if (fallback.fileId !== undefined && fallback.fileIdLst !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['fileIdLst'],
          message: 'use either fileId or fileIdLst, not both',
        });
      }
    }),
  );
export type FbInfo = z.infer<typeof FbInfoSchema>;

/**
 * `fbInfoLst`. The fallback channel must differ from the main one (an SMS send cannot fall back
 * to SMS), and a channel may appear only once (gateway code `21051`).
 */
export const fallbackListSchema = (mainChannel?: FallbackChannel) =>
  z.array(FbInfoSchema).check(
    z.superRefine((fallbacks, ctx) => {
      const seen = new Set<FallbackChannel>();
      fallbacks.forEach((fallback, index) => {
        if (fallback.ch === mainChannel) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'ch'],
            message: `a ${mainChannel} send cannot fall back to ${mainChannel}: the channel must differ`,
          });
        } else if (seen.has(fallback.ch)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'ch'],
            message: `fallback channel ${fallback.ch} is repeated in fbInfoLst`,
          });
        }
        seen.add(fallback.ch);
      });
    }),
  );
