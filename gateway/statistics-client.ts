import { BearerGatewayClient } from './bearer/bearer-client.ts';
import { messengerStatsWith } from './messenger-stats-call.ts';
import type {
  MessengerStatsName,
  MessengerStatsQueryInput,
} from './schemas/messenger-statistics.ts';
import { listClickUrlsWith, URL_STATS, urlStatsWith } from './tracking-url-calls.ts';

/**
 * The gateway client of `export-statistics`: the statistics calls it makes, with the token handling
 * of every client, without the methods and schemas of the other endpoints of spec 01 and spec 02,
 * which its cold start would read (docs/performance.md, `cold-start`).
 */
export class GatewayStatisticsClient extends BearerGatewayClient {
  listClickUrls(page = 1) {
    return listClickUrlsWith(this.bearer, page);
  }

  readonly urlStatsByChannel = urlStatsWith(this.bearer, URL_STATS.byChannel);
  readonly urlStatsClickDay = urlStatsWith(this.bearer, URL_STATS.clickDay);

  /** A messenger read/click statistic (spec 02 §4.5), as `GatewayManagementClient.stats`. */
  stats<N extends MessengerStatsName>(name: N, query: MessengerStatsQueryInput) {
    return messengerStatsWith(this.bearer, name, query);
  }
}
