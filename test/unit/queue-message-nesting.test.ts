/**
 * A queue message nested deeper than the contract allows (issue 35, item 6): rejected with one
 * problem naming where, before anything walks it recursively, by the validation the producer
 * helper, `msgbridge validate` and the sender share; the sender turns it into one "Send Rejected".
 */
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_LEVELS } from '../../functions/send-contract/queue-message.ts';
import { sendQueuedMessage } from '../../functions/sending/send-use-case.ts';
import { brandFree, problemsOf } from '../support/queue-message-inputs.ts';
import { delivery, ScriptedGateway, sendSetup, UNLIMITED } from '../support/send-use-case-world.ts';

/** `[[[…]]]` nested `depth` arrays deep, written as text: JSON.stringify itself overflows on it. */
const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A brand message whose free-form coupon holds `depth` nested arrays, as the text a producer queues. */
const deepCouponText = (depth: number): string =>
  `${JSON.stringify(brandFree).slice(0, -1)},"coupon":{"title":"쿠폰","nested":${nestedArrays(depth)}}}`;

describe('queue message nesting', () => {
  it('rejects 20,000 nested arrays in a 40 KB message with one problem at the path, without throwing', () => {
    // Prepare
    const text = deepCouponText(20_000);
    expect(text.length).toBeGreaterThan(40_000);
    const input: unknown = JSON.parse(text);

    // Act
    const problems = problemsOf(input);

    // Assess: the path goes down to the first level past the limit, and no further
    const deepest = `$.coupon.nested${'[0]'.repeat(MAX_NESTING_LEVELS - 2)}`;
    expect(problems).toEqual([
      {
        path: deepest,
        message: `nested deeper than ${MAX_NESTING_LEVELS} levels of objects and arrays (the message itself is the first)`,
      },
    ]);
  });

  it('accepts free-form fields nested exactly to the limit, and rejects one level more', () => {
    // Prepare: the message is level 1, the coupon 2, `nested` 3
    const atLimit = JSON.parse(deepCouponText(MAX_NESTING_LEVELS - 2));
    const overLimit = JSON.parse(deepCouponText(MAX_NESTING_LEVELS - 1));

    // Act
    const accepted = problemsOf(atLimit);
    const rejected = problemsOf(overLimit);

    // Assess
    expect(accepted).toEqual([]);
    expect(rejected.map((problem) => problem.path)).toEqual([
      `$.coupon.nested${'[0]'.repeat(MAX_NESTING_LEVELS - 2)}`,
    ]);
  });

  it('names an object key on the path as the other problems do', () => {
    // Prepare: userCustomFields holds any JSON (spec 01 RecvInfo)
    let deep: unknown = {};
    for (let level = 0; level < 40; level += 1) deep = { 'a b': deep };
    const input = {
      ...brandFree,
      recvInfoLst: [{ cliKey: 'r-0', phone: '01012345000', userCustomFields: deep }],
    };

    // Act
    const [problem, ...others] = problemsOf(input);

    // Assess
    expect(others).toEqual([]);
    expect(problem?.path).toBe(
      `$.recvInfoLst[0].userCustomFields${'["a b"]'.repeat(MAX_NESTING_LEVELS - 3)}`,
    );
  });

  it('makes the sender store one "Send Rejected" and not ask for the message again', async () => {
    // Prepare
    const gateway = new ScriptedGateway(() => new Error('the gateway must not be called'));
    const { store, deps } = sendSetup(gateway, UNLIMITED);
    const body = deepCouponText(20_000);

    // Act: delivered twice, as a redelivery would
    const first = await sendQueuedMessage(delivery(body, 1), deps);
    const second = await sendQueuedMessage(delivery(body, 2), deps);

    // Assess: invalid (the handler resolves: no retry), one event with the body as it came
    expect(first).toEqual({ kind: 'invalid', problems: 1 });
    expect(second).toEqual({ kind: 'invalid', problems: 1 });
    expect(gateway.calls).toHaveLength(0);
    const [rejected, ...others] = store.details('Send Rejected');
    expect(others).toEqual([]);
    expect(rejected?.data).toMatchObject({
      channel: 'brand-free',
      cliKeys: ['r-0'],
      problems: [{ path: expect.stringMatching(/^\$\.coupon\.nested\[0\]/) }],
      body,
      truncated: false,
    });
  });
});
