import { formatKst, parseGatewayDateTime } from '../protocol/kst.ts';
import type { SimContext } from './context.ts';
import { envelope, ok } from './context.ts';
import type { Router, SimRequest, SimResponse } from './router.ts';
import { stableHash } from './stable-hash.ts';
import {
  CreateClickUrlSchema,
  DeleteClickUrlSchema,
  daysCovered,
  readListPage,
  STATS_PERIOD_RANGE_DAYS,
  STATS_RANGE_DAYS,
  StatsByReceiverSchema,
  StatsByUrlSchema,
  StatsForUrlSchema,
} from './tracking-urls-rules.ts';
import type * as z from './zod.ts';

/**
 * Response-tracking short URLs, spec 01 §4.16 and §3. Request rules (from the spec alone) are in
 * `tracking-urls-rules.ts`. Choices (the spec leaves them open):
 * - A URL is `active` until `expDt` by the simulated clock, then `inactive`. The list shows both
 *   (the spec's fields carry no state); the state is visible at `GET /_sim/click/{urlId}`, the
 *   short link itself: 302 to `orgUrl` while active, 410 once expired.
 * - A deleted URL leaves the list and cannot be deleted again (`21803`), but its short link still
 *   redirects until `expDt` ("already sent messages still work") and its statistics still
 *   answer.
 * - Statistics are deterministic numbers derived from the urlId and the dates (FNV hash): sends
 *   and clicks exist only on days from the URL's registration to the earlier of its expiry and
 *   the simulated today. Counts are strings (`totCnt`, `conCnt`, `clickThroughRate`, `sumCnt`,
 *   `avgCnt`) except the recipient statistics' `totCnt`, an integer. Every statistics `data` is a
 *   list except the recipient statistics (an object with `recvlst`, 100 rows per page).
 * - Codes besides `10000`: `21001` (HTTP 400) a field breaks the request schema; `21801` orgUrl
 *   does not start with http:// or https://; `21802` from/to out of order or longer than 31 days
 *   (15 for sendDay/sendHour/clickDay/clickHour); `21803` unknown or deleted urlId (delete), or
 *   unknown urlId (statistics); `21804` expDt is not in the future.
 */
export const TRACKING_URL_CODES = {
  invalidField: '21001',
  badOrgUrl: '21801',
  badRange: '21802',
  unknownUrl: '21803',
  expiryInPast: '21804',
} as const;

const LIST_PAGE = 100;
const RECEIVER_PAGE = 100;
const CHANNELS = ['SMS', 'LMS', 'MMS', 'RCS', 'MSGR'] as const;
const DAY_MS = 86_400_000;
const KST_OFFSET_MS = 9 * 3_600_000;

interface TrackingUrl {
  readonly urlId: string;
  readonly title: string;
  readonly orgUrl: string;
  readonly expDt: string;
  readonly expiresAt: number;
  readonly registeredAt: number;
  deleted: boolean;
}

/** The KST calendar day of an instant, as a day number (days since 1970-01-01 KST). */
const kstDay = (instant: number): number => Math.floor((instant + KST_OFFSET_MS) / DAY_MS);
/** A `YYYY-MM-DD` date as a KST day number. */
const dayOf = (date: string): number => kstDay(Date.parse(parseGatewayDateTime(date) ?? ''));
const ymd = (day: number): string => formatKst(day * DAY_MS - KST_OFFSET_MS, 'YYYY-MM-DD');
const compactYmd = (day: number): string => ymd(day).replaceAll('-', '');

const rate = (clicks: number, sends: number): string =>
  sends === 0 ? '0.00' : ((clicks / sends) * 100).toFixed(2);

export const createTrackingUrls = (ctx: SimContext) => {
  const urls = new Map<string, TrackingUrl>();
  let nextUrlId = 1001;

  const fail = (code: string, message: string, status = 400): SimResponse =>
    envelope(code, message, undefined, status);

  const invalid = (error: z.core.$ZodError): SimResponse => {
    const [issue] = error.issues;
    const path = issue?.path.join('.') || '(body)';
    const code =
      issue?.path[0] === 'orgUrl' ? TRACKING_URL_CODES.badOrgUrl : TRACKING_URL_CODES.invalidField;
    return fail(code, `${path}: ${issue?.message ?? 'invalid'}`);
  };

  // ---- deterministic statistics ----

  /** Days on which the URL can have sends and clicks. */
  const liveDays = (url: TrackingUrl): { first: number; last: number } => ({
    first: kstDay(url.registeredAt),
    last: Math.min(kstDay(url.expiresAt), kstDay(ctx.clock.now())),
  });

  const isLive = (url: TrackingUrl, day: number): boolean => {
    const { first, last } = liveDays(url);
    return day >= first && day <= last;
  };

  const sendsOn = (url: TrackingUrl, day: number, ch: string): number =>
    isLive(url, day) ? stableHash(`${url.urlId}|${day}|${ch}|send`) % 30 : 0;

  const clicksOn = (url: TrackingUrl, day: number, ch: string): number => {
    const sends = sendsOn(url, day, ch);
    return Math.floor((sends * (stableHash(`${url.urlId}|${day}|${ch}|click`) % 70)) / 100);
  };

  /** Channels the URL was "sent" on: a stable, non-empty subset. */
  const channelsOf = (url: TrackingUrl): string[] => {
    const chosen = CHANNELS.filter((ch) => stableHash(`${url.urlId}|${ch}`) % 3 !== 0);
    return chosen.length > 0 ? chosen : ['SMS'];
  };

  const days = (from: number, to: number): number[] =>
    Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

  /** A day's `total` spread over 09:00–20:59; the hours of one day add up to `total`. */
  const hourShare = (hour: number, total: number): number =>
    hour < 9 || hour > 20 ? 0 : Math.floor(total / 12) + (hour - 9 < total % 12 ? 1 : 0);

  // ---- handlers ----

  const create = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const parsed = CreateClickUrlSchema.safeParse(request.json());
    if (!parsed.success) return invalid(parsed.error);
    const { urlTitle, orgUrl, expDt } = parsed.data;
    const expiresAt = Date.parse(parseGatewayDateTime(expDt) ?? '');
    const now = ctx.clock.now();
    if (!(expiresAt > now)) {
      return fail(TRACKING_URL_CODES.expiryInPast, `expDt ${expDt} is not in the future`);
    }
    const urlId = String(nextUrlId++);
    urls.set(urlId, {
      urlId,
      title: urlTitle,
      orgUrl,
      expDt,
      expiresAt,
      registeredAt: now,
      deleted: false,
    });
    return ok(Number(urlId));
  };

  const remove = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    // The spec's sample sends urlId as a query parameter; a JSON body is accepted too.
    const body = request.body.length > 0 ? request.json() : undefined;
    const fromBody =
      body !== null && typeof body === 'object' && 'urlId' in body ? body.urlId : undefined;
    const parsed = DeleteClickUrlSchema.safeParse({
      urlId: request.query.get('urlId') ?? (fromBody === undefined ? undefined : String(fromBody)),
    });
    if (!parsed.success) return invalid(parsed.error);
    const url = urls.get(parsed.data.urlId);
    if (!url || url.deleted) {
      return fail(TRACKING_URL_CODES.unknownUrl, `no tracking URL ${parsed.data.urlId}`);
    }
    url.deleted = true;
    return ok({});
  };

  const list = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const page = readListPage(request.query);
    if (page === undefined) {
      return fail(TRACKING_URL_CODES.invalidField, 'page: must be an integer from 1');
    }
    const visible = [...urls.values()]
      .filter((url) => !url.deleted)
      .sort((a, b) => b.registeredAt - a.registeredAt || Number(b.urlId) - Number(a.urlId));
    const start = (page - 1) * LIST_PAGE;
    return ok(
      visible.slice(start, start + LIST_PAGE).map((url, index) => ({
        no: start + index + 1,
        title: url.title,
        urlId: url.urlId,
        orgUrl: url.orgUrl,
        expDt: url.expDt,
        regDt: formatKst(url.registeredAt, 'YYYY-MM-DD HH:mm:ss'),
      })),
    );
  };

  /** Parses a statistics body: range rule first (`21802`), then the schema (`21001`). */
  const parseStats = <T extends { from: string; to: string }>(
    request: SimRequest,
    schema: z.ZodMiniType<T>,
    maxDays: number,
  ): { ok: true; data: T } | { ok: false; response: SimResponse } => {
    const body = request.json();
    if (body !== null && typeof body === 'object' && 'from' in body && 'to' in body) {
      const { from, to } = body;
      const span = daysCovered(from, to);
      if (span !== undefined && (span < 1 || span > maxDays)) {
        return {
          ok: false,
          response: fail(
            TRACKING_URL_CODES.badRange,
            span < 1
              ? `from ${String(from)} is after to ${String(to)}`
              : `the range ${String(from)}..${String(to)} spans ${span} days; at most ${maxDays}`,
          ),
        };
      }
    }
    const parsed = schema.safeParse(body);
    return parsed.success
      ? { ok: true, data: parsed.data }
      : { ok: false, response: invalid(parsed.error) };
  };

  const known = (urlId: string): TrackingUrl | SimResponse =>
    urls.get(urlId) ?? fail(TRACKING_URL_CODES.unknownUrl, `no tracking URL ${urlId}`);

  /** A statistics request about one URL: the caller's token, the body, then the URL itself. */
  const urlStatsRequest = <T extends { from: string; to: string; urlId: string }>(
    request: SimRequest,
    schema: z.ZodMiniType<T>,
    maxDays: number,
  ): { ok: true; data: T; url: TrackingUrl } | { ok: false; response: SimResponse } => {
    const denied = ctx.requireBearer(request);
    if (denied) return { ok: false, response: denied };
    const parsed = parseStats(request, schema, maxDays);
    if (!parsed.ok) return parsed;
    const url = known(parsed.data.urlId);
    return 'status' in url ? { ok: false, response: url } : { ok: true, data: parsed.data, url };
  };

  const statsByUrl = (request: SimRequest): SimResponse => {
    const denied = ctx.requireBearer(request);
    if (denied) return denied;
    const parsed = parseStats(request, StatsByUrlSchema, STATS_RANGE_DAYS);
    if (!parsed.ok) return parsed.response;
    const { from, to, urlId, title, orgUrl } = parsed.data;
    const [fromDay, toDay] = [dayOf(from), dayOf(to)];
    const rows = [...urls.values()]
      .filter((url) => {
        const regDay = kstDay(url.registeredAt);
        return (
          regDay >= fromDay &&
          regDay <= toDay &&
          (urlId === undefined || url.urlId === urlId) &&
          (title === undefined || url.title.includes(title)) &&
          (orgUrl === undefined || url.orgUrl === orgUrl)
        );
      })
      .map((url) => {
        const { first, last } = liveDays(url);
        let sends = 0;
        let clicks = 0;
        for (const day of days(first, last)) {
          for (const ch of channelsOf(url)) {
            sends += sendsOn(url, day, ch);
            clicks += clicksOn(url, day, ch);
          }
        }
        return {
          urlId: url.urlId,
          title: url.title,
          orgUrl: url.orgUrl,
          regDt: formatKst(url.registeredAt, 'YYYY-MM-DD HH:mm:ss'),
          totCnt: String(sends),
          conCnt: String(clicks),
          clickThroughRate: rate(clicks, sends),
        };
      });
    return ok(rows);
  };

  const statsByChannel = (request: SimRequest): SimResponse => {
    const parsed = urlStatsRequest(request, StatsForUrlSchema, STATS_RANGE_DAYS);
    if (!parsed.ok) return parsed.response;
    const { url } = parsed;
    const range = days(dayOf(parsed.data.from), dayOf(parsed.data.to));
    return ok(
      channelsOf(url).map((ch) => {
        const sends = range.reduce((sum, day) => sum + sendsOn(url, day, ch), 0);
        const clicks = range.reduce((sum, day) => sum + clicksOn(url, day, ch), 0);
        return {
          ch,
          totCnt: String(sends),
          conCnt: String(clicks),
          clickThroughRate: rate(clicks, sends),
        };
      }),
    );
  };

  const statsByReceiver = (request: SimRequest): SimResponse => {
    const parsed = urlStatsRequest(request, StatsByReceiverSchema, STATS_RANGE_DAYS);
    if (!parsed.ok) return parsed.response;
    const { url } = parsed;
    const { from, to, page, phone } = parsed.data;
    const firstDay = kstDay(url.registeredAt);
    const rows: Array<{
      conYmd: string;
      urlId: string;
      phone: string;
      sndYmd: string;
      ch: string;
      isMobile: 'Y' | 'N';
    }> = [];
    for (const day of days(dayOf(from), dayOf(to))) {
      for (const ch of channelsOf(url)) {
        for (let n = 0; n < clicksOn(url, day, ch); n++) {
          const hash = stableHash(`${url.urlId}|${day}|${ch}|${n}|who`);
          const row = {
            conYmd: compactYmd(day),
            urlId: url.urlId,
            phone: `01055500${String(hash % 25).padStart(3, '0')}`,
            sndYmd: compactYmd(Math.max(firstDay, day - (hash % 2))),
            ch,
            isMobile: hash % 5 === 0 ? ('N' as const) : ('Y' as const),
          };
          if (phone === undefined || row.phone === phone) rows.push(row);
        }
      }
    }
    const start = (page - 1) * RECEIVER_PAGE;
    return ok({
      urlId: url.urlId,
      totCnt: rows.length,
      recvlst: rows.slice(start, start + RECEIVER_PAGE),
    });
  };

  const statsByPeriod =
    (basis: 'send' | 'click', byHour: boolean) =>
    (request: SimRequest): SimResponse => {
      const parsed = urlStatsRequest(request, StatsForUrlSchema, STATS_PERIOD_RANGE_DAYS);
      if (!parsed.ok) return parsed.response;
      const { url } = parsed;
      const rows: Array<Record<string, string>> = [];
      for (const day of days(dayOf(parsed.data.from), dayOf(parsed.data.to))) {
        for (const ch of channelsOf(url)) {
          const total = basis === 'send' ? sendsOn(url, day, ch) : clicksOn(url, day, ch);
          if (total === 0) continue;
          const base = { urlId: url.urlId, ymd: compactYmd(day), ch, conDt: compactYmd(day) };
          if (!byHour) {
            rows.push({ ...base, sumCnt: String(total), avgCnt: (total / 24).toFixed(2) });
            continue;
          }
          for (let hour = 0; hour < 24; hour++) {
            const count = hourShare(hour, total);
            if (count === 0) continue;
            rows.push({
              ...base,
              hour: String(hour).padStart(2, '0'),
              sumCnt: String(count),
              avgCnt: count.toFixed(2),
            });
          }
        }
      }
      return ok(rows);
    };

  /** The short link itself, for tests: shows active / inactive by the simulated clock. */
  const click = (request: SimRequest): SimResponse => {
    const url = urls.get(request.params.urlId ?? '');
    if (!url) return fail(TRACKING_URL_CODES.unknownUrl, 'no such tracking URL', 404);
    if (ctx.clock.now() >= url.expiresAt) {
      return fail(TRACKING_URL_CODES.unknownUrl, `tracking URL expired at ${url.expDt}`, 410);
    }
    return { status: 302, headers: { location: url.orgUrl } };
  };

  return {
    register(router: Router): void {
      router.add('POST', '/msg/v1/createClickUrl', create);
      router.add('POST', '/msg/v1/deleteClickUrl', remove);
      router.add('GET', '/msg/v1/getClickUrl', list);
      router.add('POST', '/msg/v1/stat/url/msg', statsByUrl);
      router.add('POST', '/msg/v1/stat/url/channel', statsByChannel);
      router.add('POST', '/msg/v1/stat/url/receiver', statsByReceiver);
      router.add('POST', '/msg/v1/stat/url/sendDay', statsByPeriod('send', false));
      router.add('POST', '/msg/v1/stat/url/sendHour', statsByPeriod('send', true));
      router.add('POST', '/msg/v1/stat/url/clickDay', statsByPeriod('click', false));
      router.add('POST', '/msg/v1/stat/url/clickHour', statsByPeriod('click', true));
      router.add('GET', '/_sim/click/:urlId', click);
    },
  };
};
