import type { BearerCall } from './bearer/bearer-client.ts';
import { type Endpoint, parseData } from './envelope.ts';
import { validateRequest } from './request-validation.ts';
import {
  MESSENGER_STATS,
  type MessengerStatsData,
  type MessengerStatsName,
  type MessengerStatsQueryInput,
  MessengerStatsQuerySchema,
} from './schemas/messenger-statistics.ts';

/*
 * The messenger read/click statistics call of spec 02 §4.5, written once: `GatewayManagementClient`
 * and `GatewayStatisticsClient` (`statistics-client.ts`) both make it. A module of its own, so that
 * the clients of spec 01 do not build the messenger statistics' schemas at start.
 */

/** One messenger read/click statistic of spec 02 §4.5 (the `mnt` host). */
export const messengerStatsWith = async <N extends MessengerStatsName>(
  withBearer: BearerCall,
  name: N,
  query: MessengerStatsQueryInput,
): Promise<MessengerStatsData<N>> => {
  const { path, dataSchema } = MESSENGER_STATS[name];
  const target: Endpoint = { host: 'mnt', method: 'GET', path };
  const params = validateRequest(MessengerStatsQuerySchema, query, target);
  const envelope = await withBearer({ endpoint: target, query: params });
  return parseData(dataSchema, envelope.data, target) as MessengerStatsData<N>;
};
