import type { BearerCall } from './bearer/bearer-client.ts';
import { type Endpoint, parseData } from './envelope.ts';
import { validateRequest } from './request-validation.ts';
import {
  ClickUrlListDataSchema,
  ClickUrlListQuerySchema,
  UrlStatsByChannelDataSchema,
  UrlStatsByChannelRequestSchema,
  UrlStatsByReceiverDataSchema,
  UrlStatsByReceiverRequestSchema,
  UrlStatsByUrlDataSchema,
  UrlStatsByUrlRequestSchema,
  UrlStatsDayDataSchema,
  UrlStatsHourDataSchema,
  UrlStatsPeriodRequestSchema,
} from './schemas/tracking-urls.ts';
import type * as z from './schemas/zod.ts';

/*
 * The tracking-URL list and statistics calls of spec 01 §4.16, each written once: `GatewayClient`
 * makes them all, `GatewayStatisticsClient` (`statistics-client.ts`) the three `export-statistics`
 * reads.
 */

const CLICK_URL_LIST: Endpoint = { host: 'api', method: 'GET', path: '/msg/v1/getClickUrl' };

/** One page (from 1) of up to 100 tracking URLs. */
export const listClickUrlsWith = async (withBearer: BearerCall, page = 1) => {
  const query = validateRequest(ClickUrlListQuerySchema, { page }, CLICK_URL_LIST);
  // The one call that spec 01 §4.16 wants without a Content-Type header.
  const envelope = await withBearer({ endpoint: CLICK_URL_LIST, query, withoutContentType: true });
  return parseData(ClickUrlListDataSchema, envelope.data, CLICK_URL_LIST);
};

/** A tracking-URL statistics call: its endpoint, the schema of its request and of its answer's `data`. */
interface StatsCall<Q extends z.ZodMiniType, D extends z.ZodMiniType> {
  readonly endpoint: Endpoint;
  readonly request: Q;
  readonly data: D;
}

const statsCall = <Q extends z.ZodMiniType, D extends z.ZodMiniType>(
  path: string,
  request: Q,
  data: D,
): StatsCall<Q, D> => ({ endpoint: { host: 'api', method: 'POST', path }, request, data });

/** The tracking-URL statistics of spec 01 §4.16, by name. */
export const URL_STATS = {
  byUrl: statsCall('/msg/v1/stat/url/msg', UrlStatsByUrlRequestSchema, UrlStatsByUrlDataSchema),
  byChannel: statsCall(
    '/msg/v1/stat/url/channel',
    UrlStatsByChannelRequestSchema,
    UrlStatsByChannelDataSchema,
  ),
  byReceiver: statsCall(
    '/msg/v1/stat/url/receiver',
    UrlStatsByReceiverRequestSchema,
    UrlStatsByReceiverDataSchema,
  ),
  sendDay: statsCall(
    '/msg/v1/stat/url/sendDay',
    UrlStatsPeriodRequestSchema,
    UrlStatsDayDataSchema,
  ),
  sendHour: statsCall(
    '/msg/v1/stat/url/sendHour',
    UrlStatsPeriodRequestSchema,
    UrlStatsHourDataSchema,
  ),
  clickDay: statsCall(
    '/msg/v1/stat/url/clickDay',
    UrlStatsPeriodRequestSchema,
    UrlStatsDayDataSchema,
  ),
  clickHour: statsCall(
    '/msg/v1/stat/url/clickHour',
    UrlStatsPeriodRequestSchema,
    UrlStatsHourDataSchema,
  ),
} as const;

/** The call of one tracking-URL statistic: its request checked, its answer's `data` parsed. */
export const urlStatsWith =
  <Q extends z.ZodMiniType, D extends z.ZodMiniType>(
    withBearer: BearerCall,
    { endpoint: target, request: requestSchema, data: dataSchema }: StatsCall<Q, D>,
  ) =>
  async (request: z.input<Q>): Promise<z.output<D>> => {
    const json = validateRequest(requestSchema, request, target);
    const envelope = await withBearer({ endpoint: target, json });
    return parseData(dataSchema, envelope.data, target);
  };
