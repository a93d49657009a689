import type { z } from 'zod';
import { StatusQueryRequestSchema } from '../functions/commons/gateway/schemas/index.ts';
import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import { envelope, ok, type SentRecipient, type SimContext } from './context.ts';
import { createDateFormatter } from './reports.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';

const DAY_MS = 86_400_000;
/** Spec 01 §8: the status query reaches 90 days back. */
const QUERY_RANGE_DAYS = 90;

/** The fields of a validated status query the simulator reads. */
interface StatusQuery {
  readonly cliKeyLst: ReadonlyArray<{ readonly cliKey: string; readonly reqDt: string }>;
}
const QuerySchema: z.ZodType<StatusQuery> = StatusQueryRequestSchema;

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
