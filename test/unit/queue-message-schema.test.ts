import { describe, expect, it } from 'vitest';
import { sendMessageJsonSchema } from '../../functions/send-contract/queue-message-json-schema.ts';
import { EXAMPLES_VALID_AT, SEND_MESSAGE_EXAMPLES } from '../../producer/examples.ts';
import { problemsOf } from '../support/queue-message-inputs.ts';

/** Every channel, an rcs message once per variant, in the order of the JSON Schema's branches. */
const CHANNELS_AND_RCS_VARIANTS = [
  'sms',
  'mms',
  'rcs v1',
  'rcs v1.1',
  'rcs integrated',
  'rcs-reply',
  'push',
  'messenger-notice',
  'brand-template',
  'brand-free',
];

describe('examples', () => {
  it.each(SEND_MESSAGE_EXAMPLES.map((example) => ({ ...example })))(
    '"$title" is valid',
    ({ message }) => {
      expect(problemsOf(message, EXAMPLES_VALID_AT)).toEqual([]);
    },
  );

  it('cover every channel and every rcs variant once', () => {
    // Act
    const covered = SEND_MESSAGE_EXAMPLES.map(({ message }) =>
      message.channel === 'rcs' ? `rcs ${message.variant}` : message.channel,
    );

    // Assess
    expect(covered.sort()).toEqual([...CHANNELS_AND_RCS_VARIANTS].sort());
  });

  it('include a scheduled message and fallbacks', () => {
    const messages = SEND_MESSAGE_EXAMPLES.map(({ message }) => message);

    expect(messages.some((m) => 'resvYn' in m && m.resvYn === 'Y')).toBe(true);
    expect(messages.filter((m) => 'fbInfoLst' in m && m.fbInfoLst !== undefined).length).toBe(5);
  });
});

describe('sendMessageJsonSchema', () => {
  const schema = sendMessageJsonSchema();
  const branchKey = (branch: { properties?: Record<string, unknown> }): string => {
    const properties = branch.properties ?? {};
    const channel = (properties.channel as { const?: string } | undefined)?.const;
    const variant = (properties.variant as { const?: string } | undefined)?.const;
    return variant === undefined ? `${channel}` : `${channel} ${variant}`;
  };

  it('is draft 2020-12 with one oneOf branch per channel and rcs variant', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.oneOf.map(branchKey)).toEqual(CHANNELS_AND_RCS_VARIANTS);
  });

  it('requires channel everywhere and variant for rcs only; declares no nested dialect', () => {
    for (const branch of schema.oneOf) {
      expect(branch.required).toContain('channel');
      expect(branch.required?.includes('variant')).toBe(branchKey(branch).startsWith('rcs '));
      expect(branch.additionalProperties).toBe(false);
    }
    expect(JSON.stringify(schema.oneOf)).not.toContain('$schema');
  });

  it.each(SEND_MESSAGE_EXAMPLES.map((example) => ({ ...example })))(
    '"$title" fits its branch: required fields present, no field the branch lacks',
    ({ message }) => {
      // Prepare
      const key =
        message.channel === 'rcs' ? `${message.channel} ${message.variant}` : message.channel;

      // Act
      const matching = schema.oneOf.filter((branch) => branchKey(branch) === key);

      // Assess
      expect(matching).toHaveLength(1);
      const branch = matching[0];
      expect(Object.keys(branch?.properties ?? {})).toEqual(
        expect.arrayContaining(Object.keys(message)),
      );
      expect(Object.keys(message)).toEqual(expect.arrayContaining(branch?.required ?? []));
    },
  );

  it('forbids attachments together with fileIdLst in the mms branch', () => {
    const mmsBranch = schema.oneOf.find((branch) => branchKey(branch) === 'mms');

    expect(mmsBranch?.not).toEqual({ required: ['attachments', 'fileIdLst'] });
  });
});
