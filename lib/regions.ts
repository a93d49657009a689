import { Token } from 'aws-cdk-lib';
import { REGION_SUPPORT } from './region-support.ts';
import type { WebhookFront } from './webhook-api.ts';

/**
 * Why msgbridge cannot deploy in `region` with the `front` webhook front door, if it cannot: the
 * resource types and properties the Region lacks, by cfn-lint's Region data (docs/deploy.md,
 * "Supported regions"). An environment-agnostic stack (the Region a token) and a Region the data
 * does not know are left to the deployment.
 */
export const regionProblems = (region: string, front: WebhookFront): string[] => {
  if (Token.isUnresolved(region)) return [];
  const support = REGION_SUPPORT.fronts[front] as {
    readonly supported: readonly string[];
    readonly lacking: Readonly<Record<string, readonly string[]>>;
  };
  const lacks = support.lacking[region];
  if (lacks === undefined) return [];
  const other = front === 'function-url' ? 'rest-api' : 'function-url';
  const otherWorks = (REGION_SUPPORT.fronts[other].supported as readonly string[]).includes(region);
  return [
    `msgbridge cannot deploy in ${region} with webhooks.front "${front}": ${lacks.join('; ')} there (cfn-lint ${REGION_SUPPORT.cfnLintVersion} Region data)${otherWorks ? `; webhooks.front "${other}" works there` : ''}. docs/deploy.md, "Supported regions", lists the Regions that work`,
  ];
};
