/**
 * What is proven before anyone deploys: cfn-lint on the default, the production-example and the
 * NAT-instance templates in every Region they support; the Regions themselves, derived from cfn-lint's data;
 * and the rules across resources (local/stack/template-rules.ts), each shown to hold on those
 * templates and to fail on a planted violation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CfnTemplate, StackTemplate } from '../../aws-semantics/cloudformation-template.ts';
import { MsgbridgeStack } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { REGION_SUPPORT } from '../../lib/region-support.ts';
import { DeploymentModel } from '../../local/stack/deployment-model.ts';
import { type SynthesizedTemplate, synthesizeStack } from '../../local/stack/synthesize.ts';
import { templateRuleProblems } from '../../local/stack/template-rules.ts';
import { regionSupport, renderRegionSupport } from '../../scripts/region-support.ts';
import { cfnLint } from '../support/cfn-lint.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

const root = join(import.meta.dirname, '..', '..');
const production = () =>
  JSON.parse(readFileSync(join(root, 'docs', 'examples', 'production-context.json'), 'utf8'));

const modelOf = (template: CfnTemplate) =>
  new DeploymentModel(new StackTemplate(template), {
    region: 'ap-northeast-2',
    account: '123456789012',
    partition: 'aws',
    stackName: 'msgbridge',
  });

/** A deep copy of the template to plant a violation in. */
const copy = (template: CfnTemplate): CfnTemplate => structuredClone(template) as CfnTemplate;

const ofType = (template: CfnTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The properties of the one resource of `type` whose logical id contains `part`. */
const propertiesOf = (template: CfnTemplate, type: string, part: string) => {
  const [, resource] = ofType(template, type).find(([id]) => id.includes(part)) ?? [];
  if (!resource?.Properties) throw new Error(`no ${type} like ${part}`);
  return resource.Properties;
};

const variablesOf = (template: CfnTemplate, part: string) =>
  (
    propertiesOf(template, 'AWS::Lambda::Function', part).Environment as {
      Variables: Record<string, unknown>;
    }
  ).Variables;

let defaults: SynthesizedTemplate;
let example: SynthesizedTemplate;
let natInstance: SynthesizedTemplate;

beforeAll(() => {
  defaults = synthesizeStack();
  example = synthesizeStack({ settings: production() });
  natInstance = synthesizeStack({ settings: { egress: { mode: 'nat-instance' } } });
});

describe('cfn-lint', () => {
  it('finds nothing in the default template, in every Region it supports', () => {
    expect(cfnLint(defaults.file, REGION_SUPPORT.fronts['function-url'].supported)).toEqual([]);
  });

  it('finds nothing in the production example, in every Region the REST API front supports', () => {
    expect(cfnLint(example.file, REGION_SUPPORT.fronts['rest-api'].supported)).toEqual([]);
  });

  it('finds nothing in the NAT-instance template, in every Region the default front supports', () => {
    expect(cfnLint(natInstance.file, REGION_SUPPORT.fronts['function-url'].supported)).toEqual([]);
  });

  it('does find what it reports in a Region the template does not support', () => {
    const findings = cfnLint(defaults.file, ['me-central-1']);
    expect(findings.map((finding) => finding.rule)).toContain('E3006');
  });
});

describe('supported Regions', () => {
  it('are what cfn-lint’s Region data says today, in lib/region-support.ts and docs/deploy.md', () => {
    for (const [path, content] of Object.entries(renderRegionSupport(regionSupport())))
      expect(readFileSync(join(root, path), 'utf8'), `${path}: run npm run docs:regions`).toBe(
        content,
      );
  });

  it('include Seoul with either front, and leave out a Region without function URLs', () => {
    expect(REGION_SUPPORT.fronts['function-url'].supported).toContain('ap-northeast-2');
    expect(REGION_SUPPORT.fronts['rest-api'].supported).toContain('ap-northeast-2');
    expect(REGION_SUPPORT.fronts['function-url'].supported).not.toContain('me-central-1');
    expect(REGION_SUPPORT.fronts['rest-api'].supported).toContain('me-central-1');
  });

  it('refuse a synth for a concrete Region the front cannot deploy in, naming what it lacks', () => {
    const build = (region: string, front?: 'rest-api') =>
      new MsgbridgeStack(new App(), `msgbridge-${region}`, {
        env: { account: '123456789012', region },
        gateway: TEST_GATEWAY,
        egress: { mode: 'none' },
        ...(front ? { webhooks: { front } } : {}),
      });
    let problems: readonly string[] = [];
    try {
      build('me-central-1');
    } catch (error) {
      if (error instanceof InvalidPropsError) problems = error.problems;
    }
    expect(problems).toEqual([
      expect.stringMatching(
        /^msgbridge cannot deploy in me-central-1 with webhooks\.front "function-url": AWS::Lambda::Url does not exist there .*; webhooks\.front "rest-api" works there/,
      ),
    ]);
    expect(build('me-central-1', 'rest-api')).toBeInstanceOf(Stack);
    expect(build('ap-northeast-2')).toBeInstanceOf(Stack);
  });
});

describe('rules across resources', () => {
  it('hold on the default template, on the production example and with a NAT instance', () => {
    expect(templateRuleProblems(modelOf(defaults.template))).toEqual([]);
    expect(templateRuleProblems(modelOf(example.template))).toEqual([]);
    expect(templateRuleProblems(modelOf(natInstance.template))).toEqual([]);
  });

  it('fail on a queue whose visibility is below six times its consumer’s timeout', () => {
    const planted = copy(defaults.template);
    propertiesOf(planted, 'AWS::SQS::Queue', 'sendpipelinesendqueue').VisibilityTimeout = 60;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /^queue sendpipelinesendqueue\w+: visibility timeout 60 s is below 6 × the 60 s timeout of send-messages/,
      ),
    ]);
  });

  it('fail on a reservation a new account cannot give, and pass it where a stated quota can', () => {
    const planted = copy(defaults.template);
    propertiesOf(planted, 'AWS::Lambda::Function', 'receivereports').ReservedConcurrentExecutions =
      10;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /^the functions reserve 10 executions \(receive-reports 10\).*new account/,
      ),
    ]);
    expect(templateRuleProblems(modelOf(planted), { accountConcurrency: 1_000 })).toEqual([]);
  });

  it('fail on more fixed concurrency than the account has, stated or the default 1,000', () => {
    // The default template fixes 100: send-messages 2 and reconcile-status 50 (their queues'
    // maximum concurrency), publish-events 2 × 4 and fetch-attachments 10 × 4 (per shard).
    expect(templateRuleProblems(modelOf(defaults.template), { accountConcurrency: 100 })).toEqual(
      [],
    );
    expect(templateRuleProblems(modelOf(defaults.template), { accountConcurrency: 99 })).toEqual([
      expect.stringMatching(
        /^the template fixes 100 concurrent executions \(.*reconcile-status 50: maxConcurrency of its queue.*\), above an account concurrency of 99: /,
      ),
    ]);
    const planted = copy(defaults.template);
    (
      propertiesOf(planted, 'AWS::Lambda::EventSourceMapping', 'reconcilestatus').ScalingConfig as {
        MaximumConcurrency: number;
      }
    ).MaximumConcurrency = 1_000;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /^the template fixes 1050 concurrent executions .*above an account concurrency of 1000 \(the default an account has, no quota being stated\).*lambda L-B99A9384/,
      ),
    ]);
    expect(templateRuleProblems(modelOf(planted), { accountConcurrency: 2_000 })).toEqual([]);
  });

  it('fail on a gateway port the egress rules do not open', () => {
    const planted = copy(defaults.template);
    variablesOf(planted, 'sendmessages').GATEWAY_SEND_URL = 'https://send.gateway.example:8443';
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /^send-messages calls GATEWAY_SEND_URL https:\/\/send\.gateway\.example:8443 on TCP 8443, which no egress rule/,
      ),
    ]);
  });

  it('fail on a gateway port the NAT instance does not forward from the callers’ subnets', () => {
    const planted = copy(natInstance.template);
    const [instanceId] = ofType(planted, 'AWS::EC2::Instance')[0] ?? [];
    const [groupRef] = propertiesOf(planted, 'AWS::EC2::Instance', 'NatInstance')
      .SecurityGroupIds as { 'Fn::GetAtt': string[] }[];
    const groupId = String(groupRef?.['Fn::GetAtt'][0]);
    const group = planted.Resources[groupId]?.Properties as {
      SecurityGroupIngress: { CidrIp: string }[];
    };
    // Prepare-check: one rule per private subnet, each from that subnet's range.
    expect(group.SecurityGroupIngress.map((rule) => rule.CidrIp)).toEqual([
      '10.0.4.0/22',
      '10.0.8.0/22',
    ]);
    group.SecurityGroupIngress.splice(1, 1);
    const problems = templateRuleProblems(modelOf(planted));
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems)
      expect(problem).toMatch(
        new RegExp(
          `^[a-z-]+ calls GATEWAY_\\w+_URL https://\\S+ on TCP 443 through NAT instance ${instanceId}, whose security groups \\(${groupId}\\) do not let it in from 10\\.0\\.8\\.0/22 and out to the internet`,
        ),
      );
  });

  it('fail on a function URL without its lambda:InvokeFunction permission', () => {
    const planted = copy(defaults.template);
    const [id] =
      ofType(planted, 'AWS::Lambda::Permission').find(
        ([, resource]) => resource.Properties?.InvokedViaFunctionUrl === true,
      ) ?? [];
    delete (planted.Resources as Record<string, unknown>)[String(id)];
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(/no lambda:InvokeFunction permission \(InvokedViaFunctionUrl\)/),
    ]);
  });

  it('fail on a variable a composition reads that the template does not set', () => {
    const planted = copy(defaults.template);
    delete variablesOf(planted, 'sweepattachments').SWEEP_MARGIN_MS;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      'sweep-attachments reads SWEEP_MARGIN_MS, which the template does not set for it',
    ]);
  });

  it('fail on a stream filter that compares a DynamoDB number with a number', () => {
    const planted = copy(defaults.template);
    const filters = (
      propertiesOf(planted, 'AWS::Lambda::EventSourceMapping', 'fetchattachments')
        .FilterCriteria as { Filters: { Pattern: string }[] }
    ).Filters;
    filters[0] = {
      Pattern: JSON.stringify({
        eventName: ['INSERT'],
        dynamodb: { NewImage: { attachmentCount: { N: [{ numeric: ['>', 0] }] } } },
      }),
    };
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /fetchattachments\w+: the filter compares dynamodb\.NewImage\.attachmentCount\.N with a number/,
      ),
    ]);
  });

  it('fail on a key policy that names a role the same template creates', () => {
    const planted = copy(defaults.template);
    const [roleId] = ofType(planted, 'AWS::IAM::Role')[0] ?? [];
    (
      propertiesOf(planted, 'AWS::KMS::Key', 'datakey').KeyPolicy as { Statement: unknown[] }
    ).Statement.push({
      Effect: 'Allow',
      Principal: { AWS: [{ 'Fn::GetAtt': [roleId, 'Arn'] }] },
      Action: 'kms:Decrypt',
      Resource: '*',
    });
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^key datakey\\w+: statement #\\d+ of its key policy names ${roleId}, created in the same template: KMS refuses`,
        ),
      ),
    ]);
  });

  it('fail on a function whose environment is over Lambda’s 4 KB, as Lambda measures it', () => {
    const planted = copy(defaults.template);
    // 300 gateway addresses, as a careless allowlist would list them one by one.
    variablesOf(planted, 'receivereports').ALLOWED_SOURCE_CIDRS = Array.from(
      { length: 300 },
      (_, index) => `203.0.${index >> 8}.${index & 255}/32`,
    ).join(',');
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      expect.stringMatching(
        /^receive-reports: its environment variables take \d,\d{3} bytes as Lambda measures them, above its fixed quota of 4,096 .*largest: ALLOWED_SOURCE_CIDRS 4,\d{3} B/,
      ),
    ]);
  });

  it('fail on a bus encrypted with a customer managed key that has no dead-letter queue', () => {
    const planted = copy(defaults.template);
    const [busId, bus] = ofType(planted, 'AWS::Events::EventBus')[0] ?? [];
    // Prepare-check: the bus is encrypted with the data key and has its DLQ.
    expect(bus?.Properties?.KmsKeyIdentifier).toBeDefined();
    expect(bus?.Properties?.DeadLetterConfig).toBeDefined();
    delete bus?.Properties?.DeadLetterConfig;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      `event bus ${busId} is encrypted with a customer managed key (KmsKeyIdentifier) but has no DeadLetterConfig: an event EventBridge cannot encrypt or decrypt with the key is lost after PutEvents accepted it`,
    ]);
  });

  it('fail on a bus whose dead-letter queue is a FIFO queue', () => {
    const planted = copy(defaults.template);
    const [busId, bus] = ofType(planted, 'AWS::Events::EventBus')[0] ?? [];
    const deadLetters = bus?.Properties?.DeadLetterConfig as
      | { Arn?: { 'Fn::GetAtt'?: string[] } }
      | undefined;
    const queueId = String(deadLetters?.Arn?.['Fn::GetAtt']?.[0]);
    const queue = planted.Resources[queueId]?.Properties;
    if (queue) queue.FifoQueue = true;
    expect(templateRuleProblems(modelOf(planted))).toEqual([
      `event bus ${busId}: its dead-letter queue ${queueId} is a FIFO queue, which EventBridge cannot use as a DLQ (standard queues only)`,
    ]);
  });
});
