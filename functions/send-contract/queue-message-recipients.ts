import type { SendMessage } from './queue-message.ts';

/** The recipients of a message in order; a two-way RCS reply has exactly one. */
export const recipientsOf = (message: SendMessage): Array<{ cliKey: string; phone?: string }> => {
  if (message.channel === 'rcs-reply') {
    return [{ cliKey: message.body.cliKey, phone: message.body.phone }];
  }
  const list: ReadonlyArray<{ cliKey: string; phone?: string | undefined }> =
    message.body.recvInfoLst;
  return list.map(({ cliKey, phone }) => (phone === undefined ? { cliKey } : { cliKey, phone }));
};

/** Thrown by {@link withRecipients} when the selection does not fit the message. */
export class RecipientSelectionError extends Error {
  override readonly name = 'RecipientSelectionError';
  constructor(
    readonly requested: readonly string[],
    readonly unknown: readonly string[],
  ) {
    super(
      unknown.length > 0
        ? `cliKeys not in the message: ${unknown.join(', ')}`
        : 'at least one cliKey must be selected',
    );
  }
}

const keepRecipients = <M extends { body: { recvInfoLst: Array<{ cliKey: string }> } }>(
  message: M,
  keep: ReadonlySet<string>,
): M => ({
  ...message,
  body: {
    ...message.body,
    recvInfoLst: message.body.recvInfoLst.filter((recipient) => keep.has(recipient.cliKey)),
  },
});

/**
 * The same message with only the recipients whose `cliKey` is listed, in their original order:
 * how the sender retries some recipients of a request. A two-way RCS reply has one recipient
 * and is returned as is. Throws {@link RecipientSelectionError} for an empty selection or a
 * `cliKey` the message does not have (a bug in the caller, not a message problem).
 */
export const withRecipients = (message: SendMessage, cliKeys: readonly string[]): SendMessage => {
  const present = new Set(recipientsOf(message).map((recipient) => recipient.cliKey));
  const unknown = cliKeys.filter((cliKey) => !present.has(cliKey));
  if (unknown.length > 0 || cliKeys.length === 0) {
    throw new RecipientSelectionError(cliKeys, unknown);
  }
  if (message.channel === 'rcs-reply') return message;
  return keepRecipients(message, new Set(cliKeys));
};
