import { OperationError } from '../../ops/errors.ts';
import { queueDepth, redriveSendDlq } from '../../ops/operations.ts';
import type { CommandSpec, GroupSpec } from '../framework.ts';

const redrive: CommandSpec = {
  summary: 'move messages from the send DLQ back to the send queue',
  usage: `msgbridge dlq redrive [--max N]

Moves messages from the send queue's dead-letter queue back to the send queue, with their body
and message attributes, 10 at a time, until the DLQ is empty or N have moved. A message is
deleted from the DLQ only once the send queue has taken it. Safe to run again, or to interrupt:
the sender dedupes on cliKey, so a message that reaches the queue twice is sent once.
Fix what sent the messages to the DLQ first (see docs/operations.md, "Redriving the DLQ").`,
  options: { max: { type: 'string' } },
  run: async (context) => {
    const max = context.integer('max', Number.MAX_SAFE_INTEGER, { min: 1 });
    const target = await context.target();
    const waiting = await queueDepth(target, target.queues.dlq);
    const progress = context.out.progress(
      'redriving',
      waiting === undefined ? undefined : Math.min(waiting, max),
    );
    const result = await redriveSendDlq(target, max, (moved) => progress.update(moved));
    progress.finish();
    context.out.emit(result, () =>
      context.out.line(
        `moved ${result.moved} ${result.moved === 1 ? 'message' : 'messages'} from the DLQ to the send queue of the ${target.describe()}`,
      ),
    );
    if (result.notSent.length > 0 || result.notDeleted.length > 0) {
      throw new OperationError(
        `${result.notSent.length} not sent (still in the DLQ), ${result.notDeleted.length} sent but not deleted from the DLQ`,
        [...result.notSent, ...result.notDeleted].map(
          (failure) => `${failure.messageId}: ${failure.code} ${failure.message}`,
        ),
      );
    }
    return 0;
  },
};

export const dlqCommands: GroupSpec = {
  summary: 'the send dead-letter queue: redrive',
  commands: { redrive },
};
