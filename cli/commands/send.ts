import type { SendMessageInput } from '../../functions/send-contract/queue-message.ts';
import { parseSendMessage } from '../../functions/send-contract/queue-message-parsing.ts';
import { recipientsOf } from '../../functions/send-contract/queue-message-recipients.ts';
import { alreadySentCliKeys } from '../../ops/already-sent.ts';
import { OperationError } from '../../ops/errors.ts';
import { enqueueSend } from '../../producer/enqueue-send.ts';
import { UsageError } from '../errors.ts';
import { type CommandContext, type CommandSpec, valueOptions } from '../framework.ts';
import { problemLine, validateFiles } from '../validate.ts';

/** Messages per `enqueueSend` call: one SendMessageBatch, so progress moves batch by batch. */
const CHUNK = 10;

/** One SMS or LMS from the flags; cliKeys are generated when --key is not given. */
const messageFromFlags = (context: CommandContext): SendMessageInput => {
  const channel = context.required('channel');
  if (channel !== 'sms' && channel !== 'lms') {
    throw new UsageError('--channel must be sms or lms; for other channels write a message file');
  }
  const to = context.values.to;
  const phones = (Array.isArray(to) ? to : typeof to === 'string' ? [to] : [])
    .flatMap((value) => String(value).split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (phones.length === 0) throw new UsageError('--to is required');
  const key = context.string('key');
  if (key !== undefined && phones.length > 1) {
    throw new UsageError('--key names one recipient; give one --to, or leave --key out');
  }
  const stamp = (context.deps.now?.() ?? new Date()).getTime().toString(36);
  const recvInfoLst = phones.map((phone, index) => ({
    cliKey: key ?? `cli-${stamp}-${index}`,
    phone,
  }));
  const common = {
    callback: context.required('from'),
    msg: context.required('text'),
    recvInfoLst,
  };
  const title = context.string('title');
  if (channel === 'sms') {
    if (title !== undefined) throw new UsageError('--title is for lms only');
    return { channel: 'sms', ...common };
  }
  // An LMS is an MMS without attachments (spec 01 §4.4).
  return { channel: 'mms', ...common, ...(title === undefined ? {} : { title }) };
};

/** Keys named in the already-sent line; the rest are counted (all are in --json). */
const NAMED_KEYS = 10;

/** What a producer who queued the same messages again must know: nothing more will be sent. */
const alreadySentLine = (cliKeys: readonly string[]): string => {
  const named = cliKeys.slice(0, NAMED_KEYS).join(', ');
  const more = cliKeys.length > NAMED_KEYS ? `, and ${cliKeys.length - NAMED_KEYS} more` : '';
  const count = cliKeys.length === 1 ? '1 cliKey was' : `${cliKeys.length} cliKeys were`;
  return `${count} already sent (${named}${more}): the sender skips ${cliKeys.length === 1 ? 'it' : 'them'}; use new cliKeys to send again`;
};

export const sendCommand: CommandSpec = {
  summary: 'queue messages for sending (a message file, or one SMS/LMS from flags)',
  usage: `msgbridge send FILE…
msgbridge send --channel sms|lms --from CALLBACK --to PHONE [--to PHONE…] --text TEXT [--title TITLE] [--key CLIKEY]

Puts send messages on the send queue, where the sender picks them up.
  FILE…        queue messages exactly as \`msgbridge validate\` reads them (one JSON object, an
               array, or JSON lines). Every message is validated first, with the sender's own
               rules; if one is invalid, every problem is printed and NOTHING is queued.
  --channel    sms (up to 90 bytes) or lms (up to 2,000 bytes, optional --title)
  --from       the registered sender number (callback)
  --to         recipient phone numbers (repeat, or separate with commas; at most 10)
  --text       the message text
  --key        the recipient's cliKey (one --to only); default cli-<time>-<n>
Prints how many were queued and, with --json, the cliKeys of every recipient, which the
Message Accepted / Rejected events carry. cliKeys the sender has already sent (a file queued a
second time) are named: the sender skips them, so nothing more is sent for them.`,
  positionals: { min: 0, max: Number.POSITIVE_INFINITY, name: 'FILE' },
  options: {
    ...valueOptions('channel', 'from', 'text', 'title', 'key'),
    to: { type: 'string', multiple: true },
  },
  run: async (context) => {
    const now = context.deps.now?.() ?? new Date();
    let messages: Array<{ label: string; value: unknown }>;
    if (context.positionals.length > 0) {
      if (context.string('channel') !== undefined || context.values.to !== undefined) {
        throw new UsageError('give FILEs or --channel/--to/--text, not both');
      }
      const report = await validateFiles(context.positionals, context.io, now);
      if (report.invalid > 0 || report.unreadable.length > 0) {
        throw new OperationError(
          `${report.invalid} of ${report.total} messages invalid${report.unreadable.length > 0 ? `, ${report.unreadable.length} ${report.unreadable.length === 1 ? 'file' : 'files'} unreadable` : ''}; nothing was queued`,
          [
            ...report.unreadable.map(({ file, error }) => `${file}: ${error}`),
            ...report.problems.map(problemLine),
          ],
        );
      }
      messages = report.messages;
    } else {
      if (context.string('channel') === undefined) {
        throw new UsageError('give FILEs, or --channel, --from, --to and --text');
      }
      const value = messageFromFlags(context);
      const parsed = parseSendMessage(value, { now });
      if (!parsed.ok) {
        throw new OperationError(
          'the message is invalid; nothing was queued',
          parsed.problems.map((problem) => `${problem.path}: ${problem.message}`),
        );
      }
      messages = [{ label: 'flags', value }];
    }

    const target = await context.target();
    const progress = context.out.progress('queueing', messages.length);
    const queued: Array<{ label: string; messageId: string; cliKeys: string[] }> = [];
    const failed: Array<{ label: string; code: string; message: string }> = [];
    const cliKeysOf = (value: unknown): string[] => {
      const parsed = parseSendMessage(value, { now });
      return parsed.ok ? recipientsOf(parsed.message).map((r) => r.cliKey) : [];
    };
    // Looked up before the chunk is queued: after, the sender could already have sent it.
    const alreadySent: string[] = [];
    let lookupFailed: string | undefined;
    for (let start = 0; start < messages.length; start += CHUNK) {
      const chunk = messages.slice(start, start + CHUNK);
      if (lookupFailed === undefined) {
        try {
          alreadySent.push(
            ...(await alreadySentCliKeys(
              target.documents,
              target.tables.events,
              chunk.map((message) => cliKeysOf(message.value)),
            )),
          );
        } catch (error) {
          lookupFailed = (error as Error).message;
        }
      }
      const result = await enqueueSend(
        target.sqs,
        target.queues.send,
        chunk.map((message) => message.value as SendMessageInput),
        { now },
      );
      for (const { index, messageId } of result.queued) {
        const entry = chunk[index];
        if (entry === undefined) continue;
        queued.push({ label: entry.label, messageId, cliKeys: cliKeysOf(entry.value) });
      }
      for (const { index, code, message } of result.failed) {
        failed.push({ label: chunk[index]?.label ?? `#${start + index}`, code, message });
      }
      // Validated above with the same rules; a difference would be a clock edge (a schedule).
      for (const { index, problems } of result.invalid) {
        failed.push({
          label: chunk[index]?.label ?? `#${start + index}`,
          code: 'Invalid',
          message: problems.map((p) => `${p.path}: ${p.message}`).join('; '),
        });
      }
      progress.update(Math.min(start + CHUNK, messages.length));
    }
    progress.finish();
    const recipients = queued.reduce((sum, entry) => sum + entry.cliKeys.length, 0);
    const queuedKeys = new Set(queued.flatMap((q) => q.cliKeys));
    const skipped = alreadySent.filter((cliKey) => queuedKeys.has(cliKey));
    context.out.emit(
      {
        queued: queued.length,
        failed,
        messages: queued,
        cliKeys: queued.flatMap((q) => q.cliKeys),
        alreadySent: skipped,
      },
      () => {
        context.out.line(
          `queued ${queued.length} of ${messages.length} messages (${recipients} recipients) on ${target.describe()}`,
        );
        if (skipped.length > 0) context.out.line(alreadySentLine(skipped));
      },
    );
    if (lookupFailed !== undefined)
      context.out.note(
        `msgbridge ${context.name}: could not look up which cliKeys were already sent (${lookupFailed}); \`msgbridge trace CLIKEY\` shows one`,
      );
    if (failed.length > 0) {
      throw new OperationError(
        `${failed.length} ${failed.length === 1 ? 'message was' : 'messages were'} not queued`,
        failed.map((f) => `${f.label}: ${f.code} ${f.message}`),
      );
    }
    return 0;
  },
};
