import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { NatInstanceProviderV2 } from 'aws-cdk-lib/aws-ec2';
import type { CfnRole as Role } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { stackPropsFromContext } from '../../lib/context-props.ts';
import { VPC_NETWORK_INTERFACE_ACTIONS } from '../../lib/msgbridge-function.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from './fixtures/gateway.ts';

// No asset bundling: these tests look at the network only.
const newApp = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

const synth = (props: Omit<MsgbridgeStackProps, 'gateway'> = {}) => {
  const app = newApp();
  const stack = new MsgbridgeStack(app, 'msgbridge-egress', { gateway: TEST_GATEWAY, ...props });
  return { app, stack, template: Template.fromStack(stack) };
};

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

type Resource = { Properties: Record<string, unknown> & { VpcConfig?: unknown } };

/** The functions given the gateway's address, and the others. */
const functionsByRole = (template: Template) => {
  const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
  const callsGateway = (fn: Resource) =>
    JSON.stringify(fn.Properties.Environment ?? {}).includes('GATEWAY_API_URL');
  return {
    callers: functions.filter(callsGateway),
    others: functions.filter((fn) => !callsGateway(fn)),
  };
};

const EXISTING = {
  mode: 'existing-vpc',
  vpcId: 'vpc-0123456789abcdef0',
  privateSubnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'],
  availabilityZones: ['ap-northeast-2a', 'ap-northeast-2c'],
  egressIps: ['203.0.113.10', '203.0.113.11'],
} as const;

const ALARM_TOPIC = 'arn:aws:sns:ap-northeast-2:123456789012:msgbridge-alarms';

/** One gateway endpoint each for DynamoDB and S3, on exactly the private subnets' route tables. */
const expectGatewayEndpoints = (template: Template, stack: MsgbridgeStack) => {
  const privateTables = stack.resolve(
    stack.gatewayEgress.vpc?.privateSubnets.map((subnet) => subnet.routeTable.routeTableId),
  );
  const endpoints = Object.values(template.findResources('AWS::EC2::VPCEndpoint')) as Resource[];
  expect(endpoints.map((endpoint) => endpoint.Properties.ServiceName)).toEqual([
    { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.dynamodb']] },
    { 'Fn::Join': ['', ['com.amazonaws.', { Ref: 'AWS::Region' }, '.s3']] },
  ]);
  for (const endpoint of endpoints) {
    expect(endpoint.Properties.VpcEndpointType).toBe('Gateway');
    expect(endpoint.Properties.RouteTableIds).toEqual(privateTables);
  }
};

describe('gateway egress', () => {
  describe('nat mode (the default)', () => {
    const defaults = synth();

    it('creates one VPC with one NAT gateway and one Elastic IP, and logs its flows', () => {
      const { template } = defaults;

      template.resourceCountIs('AWS::EC2::VPC', 1);
      template.resourceCountIs('AWS::EC2::NatGateway', 1);
      template.resourceCountIs('AWS::EC2::EIP', 1);
      template.resourceCountIs('AWS::EC2::Subnet', 4);
      template.hasResourceProperties('AWS::EC2::NatGateway', {
        AllocationId: { 'Fn::GetAtt': [Match.stringLikeRegexp('natip1'), 'AllocationId'] },
      });
      template.hasResourceProperties('AWS::EC2::FlowLog', {
        ResourceType: 'VPC',
        TrafficType: 'ALL',
        LogDestinationType: 'cloud-watch-logs',
      });
    });

    it('routes DynamoDB and S3 from the private subnets through free gateway endpoints, not the NAT', () => {
      const { template, stack } = defaults;

      expectGatewayEndpoints(template, stack);
    });

    it('puts every gateway caller in the private subnets with the outbound-https-only security group', () => {
      const { template, stack } = defaults;
      const { callers } = functionsByRole(template);
      const egress = stack.gatewayEgress;
      const securityGroup = stack.resolve(egress.securityGroup?.securityGroupId);
      const privateSubnets = stack.resolve(egress.vpc?.privateSubnets.map((s) => s.subnetId));

      expect(callers).toHaveLength(5);
      for (const fn of callers)
        expect(fn.Properties.VpcConfig).toEqual({
          SubnetIds: privateSubnets,
          SecurityGroupIds: [securityGroup],
        });
      template.hasResourceProperties('AWS::EC2::SecurityGroup', {
        SecurityGroupEgress: [
          Match.objectLike({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
        ],
      });
      expect(
        template.findResources('AWS::EC2::SecurityGroup', {
          Properties: { SecurityGroupIngress: Match.anyValue() },
        }),
      ).toEqual({});
    });

    it('opens the port of a gateway URL or content host that names one, besides 443', () => {
      const app = newApp();
      const stack = new MsgbridgeStack(app, 'msgbridge-egress-ports', {
        gateway: {
          ...TEST_GATEWAY,
          hosts: { ...TEST_GATEWAY.hosts, api: 'https://api.gateway.example:8443' },
        },
        attachments: { contentHosts: ['files.gateway.example:9443', 'cdn.gateway.example'] },
      });
      const template = Template.fromStack(stack);

      const rules = Object.values(template.findResources('AWS::EC2::SecurityGroup')).flatMap(
        (group) =>
          (group.Properties.SecurityGroupEgress ?? []) as Array<{
            FromPort: number;
            ToPort: number;
          }>,
      );
      expect(rules.map((rule) => [rule.FromPort, rule.ToPort])).toEqual([
        [443, 443],
        [8443, 8443],
        [9443, 9443],
      ]);
    });

    it('includes poll-reports when polling', () => {
      const { template } = synth({ reportDelivery: 'polling' });
      const { callers } = functionsByRole(template);

      expect(callers).toHaveLength(6);
      for (const fn of callers) expect(fn.Properties.VpcConfig).toBeDefined();
    });

    it('keeps the webhook receivers and the publisher outside the VPC', () => {
      const { others } = functionsByRole(defaults.template);

      expect(others).toHaveLength(3);
      for (const fn of others) expect(fn.Properties.VpcConfig).toBeUndefined();
    });

    it('lets only the callers manage network interfaces, without a managed policy', () => {
      const { template, stack } = defaults;
      const policies = Object.values(template.findResources('AWS::IAM::Policy'));
      const withEni = policies.filter((policy) =>
        JSON.stringify(policy).includes('ec2:CreateNetworkInterface'),
      );
      const callerRoles = [
        stack.sendPipeline.sendMessages,
        stack.scheduledJobs.refreshToken,
        stack.scheduledJobs.reconcileStatus,
        stack.inboundAttachments.fetchAttachments,
        stack.inboundAttachments.sweepAttachments,
      ].map((fn) => stack.resolve((fn.role?.node.defaultChild as Role | undefined)?.ref));

      expect(withEni.flatMap((policy) => policy.Properties.Roles).sort(byJson)).toEqual(
        callerRoles.sort(byJson),
      );
      for (const policy of withEni)
        expect(policy.Properties.PolicyDocument.Statement).toContainEqual({
          Effect: 'Allow',
          Action: [...VPC_NETWORK_INTERFACE_ACTIONS],
          Resource: '*',
        });
      for (const role of Object.values(template.findResources('AWS::IAM::Role')))
        expect(JSON.stringify(role)).not.toContain('AWSLambdaVPCAccessExecutionRole');
    });

    it('outputs the Elastic IP addresses to register in the gateway console', () => {
      const { template } = defaults;

      template.hasOutput('GatewayEgressIps', {
        Description: Match.stringLikeRegexp('register .* gateway console'),
        Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('natip1'), 'PublicIp'] },
      });
    });

    it('creates one NAT gateway and Elastic IP per natGateways, and lists every address', () => {
      const { template } = synth({ egress: { natGateways: 2 } });

      template.resourceCountIs('AWS::EC2::NatGateway', 2);
      template.resourceCountIs('AWS::EC2::EIP', 2);
      template.hasOutput('GatewayEgressIps', {
        Value: {
          'Fn::Join': [
            ',',
            [
              { 'Fn::GetAtt': [Match.stringLikeRegexp('natip1'), 'PublicIp'] },
              { 'Fn::GetAtt': [Match.stringLikeRegexp('natip2'), 'PublicIp'] },
            ],
          ],
        },
      });
    });

    it('refuses 3 NAT gateways in an environment-agnostic stack, which has 2 zones', () => {
      expect(() => synth({ egress: { natGateways: 3 } })).toThrow(/natGateways \(3\).*env/);
    });

    it('spreads 3 NAT gateways over 3 zones of a stack with an environment', () => {
      const app = newApp();
      app.node.setContext('availability-zones:account=123456789012:region=ap-northeast-2', [
        'ap-northeast-2a',
        'ap-northeast-2b',
        'ap-northeast-2c',
      ]);
      const stack = new MsgbridgeStack(app, 'msgbridge-egress-env', {
        gateway: TEST_GATEWAY,
        env: { account: '123456789012', region: 'ap-northeast-2' },
        egress: { natGateways: 3 },
      });
      const template = Template.fromStack(stack);

      template.resourceCountIs('AWS::EC2::NatGateway', 3);
      template.resourceCountIs('AWS::EC2::EIP', 3);
    });
  });

  describe('nat-instance mode', () => {
    // A gateway on a port of its own, and an alarm topic: what the NAT instance must carry too.
    const natInstance = (() => {
      const app = newApp();
      const stack = new MsgbridgeStack(app, 'msgbridge-egress-nat-instance', {
        gateway: {
          ...TEST_GATEWAY,
          hosts: { ...TEST_GATEWAY.hosts, api: 'https://api.gateway.example:8443' },
        },
        egress: { mode: 'nat-instance' },
        alarmTopicArn: ALARM_TOPIC,
      });
      return { stack, template: Template.fromStack(stack) };
    })();
    const instanceRef = () =>
      natInstance.stack.resolve(natInstance.stack.gatewayEgress.natInstance?.instanceId);

    it('runs one t4g.nano NAT instance on the newest Amazon Linux 2023 image, read at deploy time', () => {
      const { template } = natInstance;

      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::EC2::Instance', 1);
      template.hasResourceProperties('AWS::EC2::Instance', {
        InstanceType: 't4g.nano',
        SourceDestCheck: false,
        MetadataOptions: { HttpTokens: 'required', HttpEndpoint: 'enabled' },
        BlockDeviceMappings: [
          { DeviceName: '/dev/xvda', Ebs: { Encrypted: true, VolumeType: 'gp3' } },
        ],
        ImageId: { Ref: Match.stringLikeRegexp('^SsmParameterValue') },
      });
      // An SSM parameter CloudFormation resolves: no AMI id in the template or the context.
      expect(Object.values(template.toJSON().Parameters)).toContainEqual({
        Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>',
        Default: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-arm64',
      });
      template.hasResourceProperties('AWS::EC2::FlowLog', { TrafficType: 'ALL' });
    });

    it('retries the boot script’s package install, which a cloud-init race can fail', () => {
      const [instance] = Object.values(natInstance.template.findResources('AWS::EC2::Instance'));
      const script = (instance as Resource).Properties.UserData as { 'Fn::Base64': string };

      expect(script['Fn::Base64'].split('\n')).toEqual([
        '#!/bin/bash',
        'until yum install iptables-services -y; do sleep 10; done',
        ...NatInstanceProviderV2.DEFAULT_USER_DATA_COMMANDS.slice(1),
      ]);
    });

    it('gives it the one Elastic IP to register, and sends the private subnets through it', () => {
      const { template, stack } = natInstance;

      template.resourceCountIs('AWS::EC2::EIP', 1);
      template.hasResourceProperties('AWS::EC2::EIP', {
        Domain: 'vpc',
        InstanceId: instanceRef(),
      });
      template.hasOutput('GatewayEgressIps', {
        Description: Match.stringLikeRegexp('register .* gateway console'),
        Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('natip1'), 'PublicIp'] },
      });
      const privateTables = stack.resolve(
        stack.gatewayEgress.vpc?.privateSubnets.map((subnet) => subnet.routeTable.routeTableId),
      ) as unknown[];
      expect(privateTables).toHaveLength(2);
      for (const table of privateTables)
        template.hasResourceProperties('AWS::EC2::Route', {
          RouteTableId: table,
          DestinationCidrBlock: '0.0.0.0/0',
          InstanceId: instanceRef(),
        });
      expectGatewayEndpoints(template, stack);
    });

    it('lets into the NAT instance only what the private subnets send out, on the callers’ ports', () => {
      const { template, stack } = natInstance;
      const natGroup = stack.resolve(stack.gatewayEgress.natSecurityGroup?.securityGroupId);
      const [groupId] = (natGroup as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'];
      const cidrs = stack.gatewayEgress.vpc?.privateSubnets.map((subnet) => subnet.ipv4CidrBlock);

      template.hasResourceProperties('AWS::EC2::Instance', { SecurityGroupIds: [natGroup] });
      const rules = (template.toJSON().Resources[groupId] as Resource).Properties;
      const pick = (each: Record<string, unknown>) => [
        each.CidrIp,
        each.IpProtocol,
        each.FromPort,
        each.ToPort,
      ];
      expect((rules.SecurityGroupIngress as Record<string, unknown>[]).map(pick).sort()).toEqual(
        [443, 8443]
          .flatMap((port) => (cidrs ?? []).map((cidr) => [cidr, 'tcp', port, port]))
          .sort(),
      );
      expect((rules.SecurityGroupEgress as Record<string, unknown>[]).map(pick)).toEqual([
        ['0.0.0.0/0', 'tcp', 443, 443],
        ['0.0.0.0/0', 'tcp', 8443, 8443],
      ]);
    });

    it('recovers the instance on a failed system check and reboots it on a failed instance check', () => {
      const { template } = natInstance;
      const action = (what: string) => ({
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':automate:', { Ref: 'AWS::Region' }, `:ec2:${what}`],
        ],
      });

      for (const [metric, what, periods] of [
        ['StatusCheckFailed_System', 'recover', 2],
        ['StatusCheckFailed_Instance', 'reboot', 3],
      ] as const)
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/EC2',
          MetricName: metric,
          Dimensions: [{ Name: 'InstanceId', Value: instanceRef() }],
          Statistic: 'Maximum',
          Period: 60,
          EvaluationPeriods: periods,
          AlarmActions: [action(what), ALARM_TOPIC],
          OKActions: [ALARM_TOPIC],
        });
    });

    it('puts every gateway caller, and only them, in the private subnets', () => {
      const { template, stack } = natInstance;
      const { callers, others } = functionsByRole(template);
      const privateSubnets = stack.resolve(
        stack.gatewayEgress.vpc?.privateSubnets.map((s) => s.subnetId),
      );

      expect(callers).toHaveLength(5);
      for (const fn of callers)
        expect(fn.Properties.VpcConfig).toMatchObject({ SubnetIds: privateSubnets });
      for (const fn of others) expect(fn.Properties.VpcConfig).toBeUndefined();
    });
  });

  describe('existing-vpc mode', () => {
    const existing = synth({ egress: EXISTING });

    it('places the callers in the given subnets and outputs the given addresses', () => {
      const { template } = existing;
      const { callers, others } = functionsByRole(template);

      template.resourceCountIs('AWS::EC2::VPC', 0);
      template.resourceCountIs('AWS::EC2::NatGateway', 0);
      template.resourceCountIs('AWS::EC2::EIP', 0);
      // The VPC is the platform team's: doctor says whether its route tables have them.
      template.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
      template.hasResourceProperties('AWS::EC2::SecurityGroup', {
        VpcId: EXISTING.vpcId,
      });
      expect(callers).toHaveLength(5);
      for (const fn of callers)
        expect(fn.Properties.VpcConfig).toEqual({
          SubnetIds: [...EXISTING.privateSubnetIds],
          SecurityGroupIds: [expect.anything()],
        });
      for (const fn of others) expect(fn.Properties.VpcConfig).toBeUndefined();
      template.hasOutput('GatewayEgressIps', { Value: '203.0.113.10,203.0.113.11' });
    });
  });

  describe('none mode', () => {
    it('keeps every function outside a VPC, outputs no addresses and warns', () => {
      const { template, stack } = synth({ egress: { mode: 'none' } });

      template.resourceCountIs('AWS::EC2::VPC', 0);
      template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
      for (const fn of Object.values(template.findResources('AWS::Lambda::Function')))
        expect(fn.Properties.VpcConfig).toBeUndefined();
      expect(template.findOutputs('GatewayEgressIps')).toEqual({});
      // On the egress construct, below the stack's MsgBridge (`Default`).
      Annotations.fromStack(stack).hasWarning(
        '/msgbridge-egress/Default/gateway-egress',
        Match.stringLikeRegexp('changing AWS addresses'),
      );
    });
  });

  describe('validation', () => {
    const problemsOf = (egress: MsgbridgeStackProps['egress']): readonly string[] => {
      try {
        new MsgbridgeStack(newApp(), 'invalid', { gateway: TEST_GATEWAY, egress });
      } catch (error) {
        if (error instanceof InvalidPropsError) return error.problems;
        throw error;
      }
      throw new Error('no error');
    };

    it('lists every problem of a nat configuration at once', () => {
      expect(problemsOf({ natGateways: 4, maxAzs: 0, vpcId: 'vpc-0123456789abcdef0' })).toEqual([
        'egress.vpcId is not used in "nat" mode',
        'egress.natGateways must be an integer from 1 to 3, got 4',
        'egress.maxAzs must be an integer from 1 to 3, got 0',
        'egress.natGateways (4) must not exceed maxAzs (0): one NAT gateway per Availability Zone',
      ]);
    });

    it('lists every problem of an existing-vpc configuration at once', () => {
      expect(
        problemsOf({ mode: 'existing-vpc', vpcId: 'vpc-1', egressIps: ['nat'], natGateways: 1 }),
      ).toEqual([
        'egress.natGateways is not used in "existing-vpc" mode',
        'egress.vpcId must look like vpc-0123456789abcdef0, got "vpc-1"',
        'egress.privateSubnetIds is required in "existing-vpc" mode (at least one subnet)',
        'egress.availabilityZones is required in "existing-vpc" mode (one per subnet)',
        'egress.egressIps: "nat" is not an IPv4 address',
      ]);
    });

    it('lists every problem of a nat-instance configuration at once', () => {
      expect(
        problemsOf({
          mode: 'nat-instance',
          natGateways: 2,
          maxAzs: 4,
          egressIps: ['203.0.113.10'],
        }),
      ).toEqual([
        'egress.egressIps is not used in "nat-instance" mode',
        'egress.natGateways is not used in "nat-instance" mode',
        'egress.maxAzs must be an integer from 1 to 3, got 4',
      ]);
      expect(problemsOf({ mode: 'nat-gateway' as never })).toEqual([
        'egress.mode must be "none", "nat", "nat-instance", "existing-vpc", got "nat-gateway"',
      ]);
    });

    it('reports egress problems together with the other props', () => {
      const problems = (() => {
        try {
          new MsgbridgeStack(newApp(), 'invalid', {
            gateway: { ...TEST_GATEWAY, tpsQuota: 0 },
            egress: { natGateways: 4 },
          });
        } catch (error) {
          if (error instanceof InvalidPropsError) return error.problems;
        }
        return [];
      })();

      expect(problems).toContain('egress.natGateways must be an integer from 1 to 3, got 4');
      expect(problems.length).toBeGreaterThan(1);
    });

    it('reads the egress from the context and refuses unknown keys there', () => {
      expect(
        stackPropsFromContext({ gateway: TEST_GATEWAY, egress: { mode: 'nat', natGateways: 2 } })
          .egress,
      ).toEqual({ mode: 'nat', natGateways: 2 });
      expect(
        stackPropsFromContext({ gateway: TEST_GATEWAY, egress: { mode: 'nat-instance' } }).egress,
      ).toEqual({ mode: 'nat-instance' });
      expect(() =>
        stackPropsFromContext({ gateway: TEST_GATEWAY, egress: { mode: 'nat', eips: 2 } }),
      ).toThrow(/msgbridge\.egress/);
    });
  });

  describe('cdk-nag', () => {
    it.each([
      ['nat', { natGateways: 2 }],
      ['nat-instance', { mode: 'nat-instance' }],
      ['existing-vpc', EXISTING],
    ] as const)('passes the AwsSolutions checks in %s mode', (_, egress) => {
      const app = newApp();
      new MsgbridgeStack(app, 'msgbridge-nag-egress', { gateway: TEST_GATEWAY, egress });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      // Synthesis throws on any unacknowledged error.
      const assembly = app.synth();

      expect(assembly.stacks.map((stack) => stack.stackName)).toEqual(['msgbridge-nag-egress']);
    });
  });
});
