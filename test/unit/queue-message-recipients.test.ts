import { describe, expect, it } from 'vitest';
import { sendEndpointFor } from '../../functions/send-contract/queue-message.ts';
import {
  RecipientSelectionError,
  recipientsOf,
  withRecipients,
} from '../../functions/send-contract/queue-message-recipients.ts';
import {
  brandFree,
  brandTemplate,
  mms,
  notice,
  parsed,
  push,
  rcs,
  rcsReply,
  recipients,
  sms,
} from '../support/queue-message-inputs.ts';

describe('recipientsOf and withRecipients', () => {
  const three = parsed({
    ...sms,
    recvInfoLst: [
      { cliKey: 'a', phone: '01011112222' },
      { cliKey: 'b', phone: '01011112223', mergeData: { x: '1' } },
      { cliKey: 'c', phone: '01011112224' },
    ],
  });

  it('lists the recipients in order, and the single recipient of a two-way reply', () => {
    expect(recipientsOf(three)).toEqual([
      { cliKey: 'a', phone: '01011112222' },
      { cliKey: 'b', phone: '01011112223' },
      { cliKey: 'c', phone: '01011112224' },
    ]);
    expect(recipientsOf(parsed(rcsReply))).toEqual([{ cliKey: 'bi-1', phone: '01012345678' }]);
    expect(recipientsOf(parsed(push))).toEqual([{ cliKey: 'p-0' }]);
  });

  it('keeps only the selected recipients, in their original order, with everything else', () => {
    // Act
    const retry = withRecipients(three, ['c', 'b']);

    // Assess
    expect(retry).toEqual({
      ...three,
      body: {
        ...three.body,
        recvInfoLst: [
          { cliKey: 'b', phone: '01011112223', mergeData: { x: '1' } },
          { cliKey: 'c', phone: '01011112224' },
        ],
      },
    });
    expect(recipientsOf(three)).toHaveLength(3);
  });

  it('selects on every channel with a recipients list', () => {
    // Prepare
    const messages = [mms, rcs('v1.1'), push, notice, brandTemplate, brandFree].map((input) =>
      parsed({
        ...input,
        recvInfoLst:
          input.channel === 'push'
            ? [
                { cliKey: 'x', cuid: 'u1' },
                { cliKey: 'y', cuid: 'u2' },
              ]
            : recipients(2),
      }),
    );

    // Act
    const selected = messages.map((message) =>
      withRecipients(message, [recipientsOf(message)[1]?.cliKey ?? '']),
    );

    // Assess
    expect(selected.map((message) => recipientsOf(message).map((r) => r.cliKey))).toEqual([
      ['r-1'],
      ['r-1'],
      ['y'],
      ['r-1'],
      ['r-1'],
      ['r-1'],
    ]);
  });

  it('returns a two-way reply as it is when its cliKey is selected', () => {
    const reply = parsed(rcsReply);

    expect(withRecipients(reply, ['bi-1'])).toBe(reply);
  });

  it('refuses an empty selection and a cliKey the message does not have', () => {
    expect(() => withRecipients(three, [])).toThrow(RecipientSelectionError);
    expect(() => withRecipients(three, ['a', 'z'])).toThrow(/cliKeys not in the message: z/);
    expect(() => withRecipients(parsed(rcsReply), ['other'])).toThrow(RecipientSelectionError);
  });
});

describe('sendEndpointFor', () => {
  it.each([
    { input: sms, endpoint: 'sms' },
    { input: { ...sms, variant: 'xms' }, endpoint: 'sms' },
    { input: { ...sms, variant: 'msg' }, endpoint: 'smsLegacy' },
    { input: mms, endpoint: 'mms' },
    { input: { ...mms, variant: 'msg' }, endpoint: 'mmsLegacy' },
    { input: { ...mms, attachments: [{ bucket: 'b', key: 'k.jpg' }] }, endpoint: 'mmsMultipart' },
    { input: rcs('v1'), endpoint: 'rcsV1' },
    { input: rcs('v1.1'), endpoint: 'rcsV11' },
    { input: rcs('integrated'), endpoint: 'rcsIntegrated' },
    { input: rcsReply, endpoint: 'rcsReply' },
    { input: push, endpoint: 'push' },
    { input: notice, endpoint: 'messengerNotice' },
    { input: brandTemplate, endpoint: 'brandTemplate' },
    { input: brandFree, endpoint: 'brandFree' },
  ])('sends $input.channel ($input.variant) to $endpoint', ({ input, endpoint }) => {
    expect(sendEndpointFor(parsed(input))).toBe(endpoint);
  });
});
