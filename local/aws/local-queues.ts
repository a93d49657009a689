/**
 * The local run's SQS and S3: fauxqs, with SQS's rule for the characters of a body.
 *
 * fauxqs 1.9.2 checks a body with `/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/` (its
 * `dist/sqs/sqsTypes.js`, `INVALID_MESSAGE_BODY_CHAR`, used by SendMessage and
 * SendMessageBatch). Without the `u` flag that class reads UTF-16 code units, so both halves of
 * every character above U+FFFF fall outside it: a push, RCS or brand message with an emoji, which
 * SQS accepts, was refused with InvalidMessageContents. SQS allows #x10000–#x10FFFF too
 * (aws-semantics/sqs-message.ts, with its sources), so that check's `test` is made SQS's rule
 * here; what it refuses stays refused (lone surrogates, U+FFFE, U+FFFF, control characters other
 * than tab, LF and CR). The size limit needs nothing: fauxqs refuses above the queue's
 * `MaximumMessageSize`, 1,048,576 bytes unless the template sets one, as SQS does.
 *
 * The package exports only its server, so the check is reached through its module file, which
 * is the same module instance fauxqs's actions import. A fauxqs whose check has moved fails the
 * start with {@link FauxqsChangedError}; test/integration/local-queue-message-rules.test.ts goes
 * through fauxqs's own SendMessage and SendMessageBatch on both sides of the rule, so a fauxqs
 * that checks bodies some other way fails there.
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { SQS_INVALID_BODY_CHARACTER } from '../../aws-semantics/sqs-message.ts';
import { LOCAL_REGION } from '../dynamodb-local.ts';

/** Where fauxqs 1.9.2 keeps its body check, inside the package. */
const BODY_CHECK_MODULE = join('dist', 'sqs', 'sqsTypes.js');
const BODY_CHECK_EXPORT = 'INVALID_MESSAGE_BODY_CHAR';
/** Marks the check once it is SQS's, so that a second start leaves it alone. */
const SQS_RULE = Symbol.for('msgbridge.sqs-body-rule');

/** fauxqs no longer has its body check where 1.9.2 had it: the SQS rule cannot be applied. */
export class FauxqsChangedError extends Error {
  override readonly name = 'FauxqsChangedError';
  constructor(detail: string) {
    super(
      `fauxqs changed: ${detail}. The local queue would not take every body SQS takes; see local/aws/local-queues.ts.`,
    );
  }
}

/** fauxqs's body-check module, as Node resolves `fauxqs` from here (its real path). */
const bodyCheckFile = (): string => {
  const folders = createRequire(import.meta.url).resolve.paths('fauxqs') ?? [];
  for (const folder of folders) {
    const file = join(folder, 'fauxqs', BODY_CHECK_MODULE);
    if (existsSync(file)) return realpathSync(file);
  }
  throw new FauxqsChangedError(`no ${BODY_CHECK_MODULE} in the package`);
};

/** Makes fauxqs refuse exactly the bodies SQS refuses; applying it again changes nothing. */
export const applySqsBodyRule = async (): Promise<void> => {
  const module = (await import(pathToFileURL(bodyCheckFile()).href)) as Record<string, unknown>;
  const check = module[BODY_CHECK_EXPORT];
  if (Object.prototype.toString.call(check) !== '[object RegExp]')
    throw new FauxqsChangedError(`${BODY_CHECK_MODULE} exports no ${BODY_CHECK_EXPORT} pattern`);
  if (SQS_RULE in (check as object)) return;
  // An own `test` shadows RegExp.prototype.test, which is all fauxqs calls on it.
  Object.defineProperty(check, 'test', {
    value: (body: string) => SQS_INVALID_BODY_CHARACTER.test(body),
  });
  Object.defineProperty(check, SQS_RULE, { value: true });
};

/** Starts fauxqs on a free loopback port, its queues taking the bodies SQS takes. */
export const startLocalQueues = async (): Promise<FauxqsServer> => {
  await applySqsBodyRule();
  return startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION });
};
