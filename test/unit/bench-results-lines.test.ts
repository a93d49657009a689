import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRICE_REGION } from '../../bench/prices.ts';
import {
  type PriceTable,
  priceKeyOf,
  REGIONAL_PRICES,
  REGIONS,
} from '../../bench/regional-cost.ts';

/** What `bench/results.json` holds of a priced line. */
interface Line {
  readonly line: string;
  readonly unitPriceUsd?: number;
  readonly unitsPerMessage?: number;
  readonly usdPerMillionMessages?: number;
  readonly usdPerMonth?: number;
}
interface RegionFigures {
  readonly storage?: readonly Line[];
  readonly natDataPerMillionUsd?: number;
}
interface Path {
  readonly cost?: readonly Line[];
  readonly nat?: Line;
  readonly byRegion?: Readonly<Record<string, RegionFigures>>;
}
type Scenario = Readonly<Record<string, unknown>> & {
  readonly outbound?: Path;
  readonly inbound?: Path;
  readonly inboundPlain?: Path;
  readonly lines?: Readonly<Record<string, readonly Line[]>>;
};

const results = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'results.json'), 'utf8'),
) as { scenarios: Readonly<Record<string, Scenario>> };

const paths: Array<readonly [string, Path]> = Object.entries(results.scenarios).flatMap(
  ([name, scenario]) =>
    (['outbound', 'inbound', 'inboundPlain'] as const).flatMap((path) => {
      const figures = scenario[path];
      return figures ? [[`${name} ${path}`, figures] as const] : [];
    }),
);

/** The price of each storage line (`regional-cost.ts` storageLines). */
const STORAGE_PRICES: Readonly<Record<string, keyof PriceTable>> = {
  'DynamoDB storage (GB-month)': 'dynamoDbStorageGbMonth',
  'DynamoDB point-in-time recovery (GB-month)': 'dynamoDbPitrGbMonth',
  'S3 Standard storage (GB-month)': 's3StandardGbMonth',
  'EventBridge archive storage (GB-month)': 'eventBridgeArchiveStorageGbMonth',
  'CloudWatch Logs storage (GB-month)': 'cloudWatchLogsStorageGbMonth',
};

describe('the recorded benchmark figures', () => {
  it('have no priced line below zero, in any scenario', () => {
    const negative: string[] = [];
    const check = (where: string, line: Line) => {
      for (const value of [line.usdPerMillionMessages, line.unitsPerMessage, line.usdPerMonth])
        if (value !== undefined && value < 0) negative.push(`${where}: ${line.line} = ${value}`);
    };
    for (const [where, path] of paths) {
      for (const line of path.cost ?? []) check(where, line);
      if (path.nat) check(`${where} nat`, path.nat);
      for (const [region, figures] of Object.entries(path.byRegion ?? {})) {
        for (const line of figures.storage ?? []) check(`${where} ${region}`, line);
        if ((figures.natDataPerMillionUsd ?? 0) < 0) negative.push(`${where} ${region} NAT data`);
      }
    }
    for (const [name, scenario] of Object.entries(results.scenarios))
      for (const [option, lines] of Object.entries(scenario.lines ?? {}))
        for (const line of lines) check(`${name} ${option}`, line);

    expect(negative).toEqual([]);
  });

  it('price each line in the Region it claims', () => {
    for (const [where, path] of paths) {
      // A scenario's own lines are at `prices.ts`' Region (US East).
      for (const line of [...(path.cost ?? []), ...(path.nat ? [path.nat] : [])]) {
        if (line.unitPriceUsd === undefined || line.line.endsWith('(spread)')) continue;
        const key = priceKeyOf(line.line);
        expect(line.unitPriceUsd, `${where} ${line.line}`).toBeCloseTo(
          key === 'free' ? line.unitPriceUsd : REGIONAL_PRICES[PRICE_REGION][key],
          12,
        );
      }
      expect(PRICE_REGION).toBe('us-east-1');
      for (const region of REGIONS) {
        const figures = path.byRegion?.[region];
        if (!figures) continue;
        // The NAT's bytes at this Region's rate: $0.059/GB in Seoul, $0.045/GB in US East.
        if (path.nat?.unitsPerMessage !== undefined && figures.natDataPerMillionUsd !== undefined)
          expect(figures.natDataPerMillionUsd, `${where} ${region} NAT`).toBeCloseTo(
            path.nat.unitsPerMessage * REGIONAL_PRICES[region].natGatewayGb * 1e6,
            3,
          );
        for (const line of figures.storage ?? []) {
          const key = STORAGE_PRICES[line.line];
          if (!key || line.usdPerMillionMessages === 0) continue;
          expect(line.usdPerMillionMessages, `${where} ${region} ${line.line}`).toBeCloseTo(
            (line.unitsPerMessage ?? 0) * REGIONAL_PRICES[region][key] * 1e6,
            3,
          );
        }
      }
    }
  });
});
