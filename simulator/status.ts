import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import { envelope, ok, type SentRecipient, type SimContext } from './context.ts';
import { createDateFormatter } from './gateway-dates.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import * as z from './zod.ts';

const DAY_MS = 86_400_000;
/** Spec 01 §8: the status query reaches 90 days back. */
const QUERY_RANGE_DAYS = 90;
/** Spec 01 §8: at most 10 cliKeys per call. */
const QUERY_KEYS_MAX = 10;

/**
 * Body of `POST /msg/v1/sent`, from spec 01 §4.13 alone: `cliKeyLst` of 1 to 10 `{cliKey, reqDt}`,
 * both required, reqDt a real `YYYY-MM-DD`. The spec gives cliKey no shape here, so any
 * non-empty string is taken and one the simulator never saw (however spelt) answers
 * `INVALID_KEY`, the spec's "key error". Silent in the spec and chosen here: an empty list and
 * unknown fields are refused.
 */
const QuerySchema = z.strictObject({
  cliKeyLst: z
    .array(
      z.strictObject({
        cliKey: z.string().check(z.minLength(1, 'is required')),
        reqDt: z
          .string()
          .check(
            z.refine(
              (value) =>
                /^\d{4}-\d{2}-\d{2}$/.test(value) && parseGatewayDateTime(value) !== undefined,
              'must be a real YYYY-MM-DD',
            ),
          ),
      }),
    )
    .check(
      z.minLength(1, 'at least one cliKey'),
      z.maxLength(QUERY_KEYS_MAX, `at most ${QUERY_KEYS_MAX} cliKeys per call`),
    ),
});

/** Start of a KST calendar day (`YYYY-MM-DD`) as epoch ms, or NaN. */
const kstDayStart = (date: string): number => Date.parse(parseGatewayDateTime(date) ?? '');

/**
 * `POST /msg/v1/sent` (spec 01 §4.13). A key is found only with the KST date of its send call
 * (or of its scheduled delivery) as `reqDt`, so a client that sends the UTC date of an evening
 * send gets `INVALID_KEY`, as it would from a date-partitioned gateway (our reading).
 */
export const createStatus = (ctx: SimContext) => {
  const formatDate = createDateFormatter(ctx.options.dateStyle);

  const describe = (recipient: SentRecipient) => {
    const common = { msgKey: recipient.msgKey, cliKey: recipient.cliKey };
    const { result } = recipient;
    if (recipient.status !== 'DONE' || result === undefined) {
      return {
        ...common,
        ch: recipient.channel,
        status: recipient.status,
        productCode: recipient.productCode,
      };
    }
    return {
      ...common,
      ch: result.ch,
      status: 'DONE',
      resultCode: result.resultCode,
      resultCodeDesc: result.resultCodeDesc,
      telco: result.telco,
      fbReasonLst: result.fbReasonLst,
      rptDt: formatDate(result.reportedAt),
      productCode: result.productCode ?? recipient.productCode,
    };
  };

  const lookUp = (cliKey: string, reqDt: string) => {
    const today = kstDayStart(formatKst(ctx.clock.now(), 'YYYY-MM-DD'));
    if ((today - kstDayStart(reqDt)) / DAY_MS > QUERY_RANGE_DAYS) {
      return { cliKey, status: 'OVER_DATE' };
    }
    const recipient = ctx.state.recipients.get(cliKey);
    const days = recipient
      ? [recipient.requestedAt, recipient.deliverAt].map((at) => formatKst(at, 'YYYY-MM-DD'))
      : [];
    if (!recipient || !days.includes(reqDt)) return { cliKey, status: 'INVALID_KEY' };
    return describe(recipient);
  };

  const query = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    let body: unknown;
    try {
      body = request.json();
    } catch {
      return envelope('21000', 'request body is not valid JSON', undefined, 400);
    }
    const parsed = QuerySchema.safeParse(body);
    if (!parsed.success) {
      const [first] = parsed.error.issues;
      const path = first?.path.join('.') || '(body)';
      return envelope('21001', `${path}: ${first?.message ?? 'invalid'}`, undefined, 400);
    }
    return ok({
      cliKeyLst: parsed.data.cliKeyLst.map(({ cliKey, reqDt }) => lookUp(cliKey, reqDt)),
    });
  };

  return {
    register(router: Router): void {
      router.add('POST', '/msg/v1/sent', query);
    },
  };
};
