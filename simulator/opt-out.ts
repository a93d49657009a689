import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import type { SimContext } from './context.ts';
import { envelope, ok } from './context.ts';
import {
  DeleteSchema,
  ListQuerySchema,
  PeriodQuerySchema,
  RegisterSchema,
} from './opt-out-rules.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import type * as z from './zod.ts';

/**
 * The opt-out (080) number list, spec 01 §4.15 and §3. All four operations authenticate with the
 * `apiKey` header; what a request must look like is in `opt-out-rules.ts`. Codes besides `10000`
 * (simulator choices):
 * - `21001` (HTTP 400): a field or query parameter breaks the request schema.
 * - `21701` (HTTP 400): a `{phone, callback}` is already registered and not deleted; nothing in
 *   the request is registered. A deleted combination may be registered again: that adds a new
 *   entry and the deleted one stays in the list (deleting is irreversible).
 * - `21702` (HTTP 400): delete named a phone (and callback) that was never registered. Deleting
 *   an entry that is already deleted succeeds.
 */
export const OPT_OUT_CODES = {
  invalidField: '21001',
  alreadyRegistered: '21701',
  notRegistered: '21702',
} as const;

interface OptOutRecord {
  readonly phone: string;
  readonly callback: string;
  readonly registeredAt: number;
  updatedAt: number;
  deletedAt: number | undefined;
}

const dateTime = (instant: number): string => formatKst(instant, 'YYYY-MM-DD HH:mm:ss');

/** The opt-out endpoints of spec 01 §4.15. */
const OPT_OUT_ROUTES = {
  register: 'POST /client/v1/080/ars080Reject',
  list: 'POST /client/v1.2/080/ars080RejectList',
  remove: 'DELETE /client/v1/080/ars080RejectDelete',
  period: 'GET /client/v1.1/080/ars080BlockNumberList',
} as const;

export const createOptOut = (ctx: SimContext) => {
  const records: OptOutRecord[] = [];

  const invalid = (error: z.core.$ZodError): SimResponse => {
    const [issue] = error.issues;
    const path = issue?.path.join('.') || '(body)';
    return envelope(
      OPT_OUT_CODES.invalidField,
      `${path}: ${issue?.message ?? 'invalid'}`,
      undefined,
      400,
    );
  };

  const isActive = (record: OptOutRecord): boolean => record.deletedAt === undefined;

  const register = (request: SimRequest): SimResponse => {
    const denied = ctx.requireApiKeyHeader(request);
    if (denied) return denied;
    const parsed = RegisterSchema.safeParse(request.json());
    if (!parsed.success) return invalid(parsed.error);
    const taken = parsed.data.filter((pair) =>
      records.some(
        (record) =>
          isActive(record) && record.phone === pair.phone && record.callback === pair.callback,
      ),
    );
    if (taken.length > 0) {
      return envelope(
        OPT_OUT_CODES.alreadyRegistered,
        `already registered: ${taken.map((pair) => `${pair.phone}/${pair.callback}`).join(', ')}`,
        undefined,
        400,
      );
    }
    const now = ctx.clock.now();
    for (const pair of parsed.data) {
      records.push({ ...pair, registeredAt: now, updatedAt: now, deletedAt: undefined });
    }
    return ok();
  };

  const remove = (request: SimRequest): SimResponse => {
    const denied = ctx.requireApiKeyHeader(request);
    if (denied) return denied;
    const parsed = DeleteSchema.safeParse(request.json());
    if (!parsed.success) return invalid(parsed.error);
    const { phone, callback } = parsed.data;
    const matching = records.filter(
      (record) => record.phone === phone && (callback === '*' || record.callback === callback),
    );
    if (matching.length === 0) {
      return envelope(
        OPT_OUT_CODES.notRegistered,
        `no opt-out entry for ${phone} with callback ${callback}`,
        undefined,
        400,
      );
    }
    const now = ctx.clock.now();
    for (const record of matching.filter(isActive)) {
      record.deletedAt = now;
      record.updatedAt = now;
    }
    return ok();
  };

  const list = (request: SimRequest): SimResponse => {
    const denied = ctx.requireApiKeyHeader(request);
    if (denied) return denied;
    const parsed = ListQuerySchema.safeParse({
      phone: param(request, 'phone'),
      listCnt: param(request, 'listCnt'),
      pageIdx: param(request, 'pageIdx'),
    });
    if (!parsed.success) return invalid(parsed.error);
    const { phone, listCnt, pageIdx } = parsed.data;
    const selected = records.filter((record) => phone === undefined || record.phone === phone);
    const page = selected.slice((pageIdx - 1) * listCnt, pageIdx * listCnt);
    return ok({
      listCnt,
      pageIdx,
      totalCnt: selected.length,
      rejectList: page.map((record) => ({
        phone: record.phone,
        callback: record.callback,
        delYn: isActive(record) ? 'N' : 'Y',
        updDt: dateTime(record.updatedAt),
        delDt: record.deletedAt === undefined ? null : dateTime(record.deletedAt),
      })),
    });
  };

  const period = (request: SimRequest): SimResponse => {
    const denied = ctx.requireApiKeyHeader(request);
    if (denied) return denied;
    const parsed = PeriodQuerySchema.safeParse({
      '080ArsNumber': param(request, '080ArsNumber'),
      fromTime: param(request, 'fromTime'),
      toTime: param(request, 'toTime'),
      page: param(request, 'page'),
      pageSize: param(request, 'pageSize'),
    });
    if (!parsed.success) return invalid(parsed.error);
    const query = parsed.data;
    const from = Date.parse(parseGatewayDateTime(query.fromTime) ?? '');
    // `toTime` names a whole second: include everything up to its end.
    const to = Date.parse(parseGatewayDateTime(query.toTime) ?? '') + 999;
    const arsNumber = query['080ArsNumber'];
    const selected = records
      .filter(
        (record) =>
          (record.callback === arsNumber || record.callback === '*') &&
          record.updatedAt >= from &&
          record.updatedAt <= to,
      )
      .sort((a, b) => a.updatedAt - b.updatedAt);
    const totalPages = Math.ceil(selected.length / query.pageSize);
    const page = selected.slice((query.page - 1) * query.pageSize, query.page * query.pageSize);
    return {
      status: 200,
      body: {
        code: '10000',
        message: 'success',
        data: page.map((record) => ({
          blockNumber: record.phone,
          aniNumber: record.phone,
          updateTime: formatKst(record.updatedAt, 'YYYYMMDDHHmmss'),
          // The gateway's reading: `inactive` = the number is blocked, `active` = it was removed.
          status: isActive(record) ? 'inactive' : 'active',
        })),
        meta: {
          totalItems: selected.length,
          totalPages,
          '080ArsNumber': arsNumber,
          fromTime: query.fromTime,
          toTime: query.toTime,
          pageSize: query.pageSize,
          page: query.page,
        },
      },
    };
  };

  return {
    register(router: Router): void {
      router.addAll(OPT_OUT_ROUTES, { register, list, remove, period });
    },
  };
};

/** A query parameter; absent and empty both read as not given (other parameters are ignored). */
const param = (request: SimRequest, name: string): string | undefined => {
  const value = request.query.get(name);
  return value === null || value === '' ? undefined : value;
};
