/**
 * Lambda's fixed 4 KB for a function's environment variables (lib/lambda-environment.ts). The
 * settings that put a list into an environment are refused past their share, each naming the
 * setting and the limit; and the share is sound: with the largest lists validation lets through
 * and the longest stack name CloudFormation allows, every function's environment still fits, as
 * the before-deploy rule measures it.
 */
import { describe, expect, it } from 'vitest';
import { StackTemplate } from '../../aws-semantics/cloudformation-template.ts';
import { inboundAttachmentsProblems } from '../../lib/inbound-attachments.ts';
import {
  environmentBytes,
  LAMBDA_ENVIRONMENT_BYTES,
  SETTING_ENVIRONMENT_BYTES,
} from '../../lib/lambda-environment.ts';
import { statisticsExportProblems } from '../../lib/statistics-export.ts';
import { webhookApiProblems } from '../../lib/webhook-api.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { synthesizeStack } from '../../local/stack/synthesize.ts';
import { environmentSizeProblems } from '../../local/stack/template-rules.ts';
import { stackProblems } from '../support/stack-template.ts';

const cidr = (index: number) =>
  `203.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}/32`;
const host = (index: number) => `files-${index}.attachments.gateway.example`;
const channel = (index: number) => `@msgbridge-channel-${String(index).padStart(4, '0')}`;

/** The longest list of `make(0…)` that `problems` accepts, found by growing it one at a time. */
const largestAccepted = (
  make: (index: number) => string,
  problems: (list: string[]) => readonly string[],
): string[] => {
  const list: string[] = [];
  while (problems([...list, make(list.length)]).length === 0) list.push(make(list.length));
  return list;
};

describe('Lambda’s 4 KB environment', () => {
  it('refuses each list setting past its share, naming the setting and the limit', () => {
    // Act
    const problems = stackProblems({
      egress: { mode: 'none' },
      webhooks: { allowedSourceCidrs: Array.from({ length: 300 }, (_, i) => cidr(i)) },
      attachments: { contentHosts: Array.from({ length: 100 }, (_, i) => host(i)) },
      statisticsExport: { messengerChannels: Array.from({ length: 100 }, (_, i) => channel(i)) },
    });

    // Assess
    const limit = 'Lambda refuses a function whose variables exceed 4 KB \\(4,096 bytes\\) in all';
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^webhooks\\.allowedSourceCidrs takes 4,\\d{3} bytes of its function's environment \\(ALLOWED_SOURCE_CIDRS, as Lambda measures it\\), more than the 2,048 a setting may take: ${limit}`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^attachments\\.contentHosts takes \\d,\\d{3} bytes .*ATTACHMENT_CONTENT_HOSTS.*${limit}`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^statisticsExport\\.messengerChannels takes \\d,\\d{3} bytes .*STATISTICS_SETTINGS.*${limit}`,
        ),
      ),
    ]);
  });

  it('accepts the largest lists, whose functions still fit with the longest stack name', () => {
    // Prepare: the largest lists each check lets through.
    const allowedSourceCidrs = largestAccepted(cidr, (list) =>
      webhookApiProblems({ allowedSourceCidrs: list }),
    );
    const contentHosts = largestAccepted(host, (list) =>
      inboundAttachmentsProblems({ contentHosts: list }),
    );
    const messengerChannels = largestAccepted(channel, (list) =>
      statisticsExportProblems({ messengerChannels: list }),
    );
    // A stack name of CloudFormation's longest, 128 characters: every generated name grows with it.
    const stackName = `msgbridge-${'x'.repeat(118)}`;

    // Act
    const synthesized = synthesizeStack({
      stackName,
      settings: {
        webhooks: { allowedSourceCidrs },
        statisticsExport: { messengerChannels },
      },
      // The content hosts are a prop of the construct only, not a context setting.
      props: { attachments: { contentHosts } },
    });
    const model = new DeploymentModel(new StackTemplate(synthesized.template), {
      region: 'ap-northeast-2',
      account: '123456789012',
      partition: 'aws',
      stackName,
    });

    // Assess: the lists are there, near their share, and nothing is over the quota.
    const sizes = new Map(
      model.stack
        .functions()
        .map((fn) => [
          fn.name,
          environmentBytes(model.resolve(fn.environment) as Record<string, string>),
        ]),
    );
    for (const name of ['receive-reports', 'fetch-attachments', 'export-statistics'])
      expect(sizes.get(name), name).toBeGreaterThan(SETTING_ENVIRONMENT_BYTES - 100);
    expect(Math.max(...sizes.values())).toBeLessThanOrEqual(LAMBDA_ENVIRONMENT_BYTES);
    expect(environmentSizeProblems(model)).toEqual([]);
  });
});
