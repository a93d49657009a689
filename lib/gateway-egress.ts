import { isIPv4 } from 'node:net';
import { Annotations, Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Ec2Action, Ec2InstanceAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import {
  AmazonLinuxCpuType,
  CfnEIP,
  type CfnInstance,
  FlowLogDestination,
  FlowLogTrafficType,
  GatewayVpcEndpointAwsService,
  type Instance,
  InstanceClass,
  InstanceSize,
  InstanceType,
  type ISecurityGroup,
  type IVpc,
  MachineImage,
  NatInstanceProviderV2,
  NatProvider,
  NatTrafficDirection,
  Peer,
  Port,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  UserData,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { alarmAbove, notifyAlarmTopic } from './alarm-actions.ts';
import { integerProblem, throwIfInvalid } from './props-validation.ts';

/**
 * Where the functions that call the gateway send their traffic from:
 * - `nat`: a VPC of msgbridge's own; the functions run in its private subnets behind NAT gateways
 *   whose Elastic IPs the stack creates and outputs (`GatewayEgressIps`).
 * - `nat-instance`: the same VPC behind one NAT instance (a t4g.nano running Amazon Linux 2023)
 *   with one Elastic IP: a fraction of a NAT gateway's month, for a single instance in one
 *   Availability Zone (docs/operations.md, "Fixed egress").
 * - `existing-vpc`: private subnets of a VPC the platform team already runs, with its own NAT
 *   (or egress firewall) addresses, which the stack cannot read and so is told.
 * - `none`: no VPC; the gateway sees Lambda's changing public addresses, which it refuses unless
 *   every one is registered. For test accounts only.
 */
export type EgressMode = 'none' | 'nat' | 'nat-instance' | 'existing-vpc';

/** Every egress mode, as the props and the context take them. */
export const EGRESS_MODES = [
  'none',
  'nat',
  'nat-instance',
  'existing-vpc',
] as const satisfies readonly EgressMode[];

export interface GatewayEgressOptions {
  /**
   * `nat` is what a production deployment needs: the gateway accepts calls only from registered
   * source addresses. It costs money per hour (one NAT gateway and its Elastic IP per
   * `natGateways`, see docs/operations.md "Fixed egress"); `nat-instance` costs a fraction of it
   * for one instance in one Availability Zone.
   * @default 'nat'
   */
  readonly mode?: EgressMode;
  /**
   * `nat` mode: NAT gateways, each with one Elastic IP to register, 1 to 3. One is cheapest and
   * gives the fewest addresses (the gateway binds the refresh token to the authenticating IP);
   * more survive the loss of an Availability Zone.
   * @default 1
   */
  readonly natGateways?: number;
  /**
   * `nat` and `nat-instance` modes: Availability Zones with a private subnet for the functions,
   * 1 to 3, at least `natGateways`. An environment-agnostic stack can use 2 at most.
   * @default - 2, or `natGateways` when larger
   */
  readonly maxAzs?: number;
  /**
   * `existing-vpc` mode: the VPC's id, `vpc-...`.
   * @default - none: required in `existing-vpc` mode, refused in the others
   */
  readonly vpcId?: string;
  /**
   * `existing-vpc` mode: private subnets (with a route to the internet through NAT) for the functions.
   * @default - none: required in `existing-vpc` mode, refused in the others
   */
  readonly privateSubnetIds?: readonly string[];
  /**
   * `existing-vpc` mode: the Availability Zones of `privateSubnetIds`, in the same order.
   * @default - none: required in `existing-vpc` mode, refused in the others
   */
  readonly availabilityZones?: readonly string[];
  /**
   * `existing-vpc` mode: the public IPv4 addresses that traffic from `privateSubnetIds` leaves
   * from (the VPC's NAT Elastic IPs): output to be registered in the gateway console.
   * @default - none: required in `existing-vpc` mode, refused in the others
   */
  readonly egressIps?: readonly string[];
}

const EXISTING_VPC_KEYS = ['vpcId', 'privateSubnetIds', 'availabilityZones', 'egressIps'] as const;
const MAX_NAT_GATEWAYS = 3;

/** Every problem with the egress options, each named by its path below `egress`. */
export const gatewayEgressProblems = (options: GatewayEgressOptions): string[] => {
  const mode = options.mode ?? 'nat';
  if (!(EGRESS_MODES as readonly string[]).includes(mode))
    return [
      `mode must be ${EGRESS_MODES.map((each) => `"${each}"`).join(', ')}, got ${JSON.stringify(mode)}`,
    ];
  const problems: string[] = [];
  const notFor = (keys: readonly (keyof GatewayEgressOptions)[]) => {
    for (const key of keys)
      if (options[key] !== undefined) problems.push(`${key} is not used in "${mode}" mode`);
  };
  if (mode !== 'existing-vpc') notFor(EXISTING_VPC_KEYS);
  // One NAT instance: the one address, and the one Availability Zone, of that mode.
  if (mode !== 'nat') notFor(['natGateways']);
  if (mode !== 'nat' && mode !== 'nat-instance') notFor(['maxAzs']);
  if (mode === 'nat-instance')
    problems.push(...integerProblem('maxAzs', options.maxAzs, { min: 1, max: 3 }));
  if (mode === 'nat') {
    problems.push(
      ...integerProblem('natGateways', options.natGateways, { min: 1, max: MAX_NAT_GATEWAYS }),
      ...integerProblem('maxAzs', options.maxAzs, { min: 1, max: 3 }),
    );
    const { natGateways = 1, maxAzs } = options;
    if (maxAzs !== undefined && natGateways > maxAzs)
      problems.push(
        `natGateways (${natGateways}) must not exceed maxAzs (${maxAzs}): one NAT gateway per Availability Zone`,
      );
  }
  if (mode === 'existing-vpc') {
    const { vpcId, privateSubnetIds, availabilityZones, egressIps } = options;
    if (vpcId === undefined) problems.push('vpcId is required in "existing-vpc" mode');
    else if (!Token.isUnresolved(vpcId) && !/^vpc-[0-9a-f]{8,17}$/.test(vpcId))
      problems.push(`vpcId must look like vpc-0123456789abcdef0, got ${JSON.stringify(vpcId)}`);
    if (!privateSubnetIds?.length)
      problems.push('privateSubnetIds is required in "existing-vpc" mode (at least one subnet)');
    for (const id of privateSubnetIds ?? [])
      if (!Token.isUnresolved(id) && !/^subnet-[0-9a-f]{8,17}$/.test(id))
        problems.push(`privateSubnetIds: ${JSON.stringify(id)} is not a subnet id`);
    if (!availabilityZones?.length)
      problems.push('availabilityZones is required in "existing-vpc" mode (one per subnet)');
    else if (privateSubnetIds?.length && privateSubnetIds.length !== availabilityZones.length)
      problems.push(
        `availabilityZones must name the zone of each of the ${privateSubnetIds.length} privateSubnetIds, got ${availabilityZones.length}`,
      );
    if (!egressIps?.length)
      problems.push(
        'egressIps is required in "existing-vpc" mode: the public addresses to register in the gateway console',
      );
    for (const ip of egressIps ?? [])
      if (!Token.isUnresolved(ip) && !isIPv4(ip))
        problems.push(`egressIps: ${JSON.stringify(ip)} is not an IPv4 address`);
  }
  return problems;
};

/** The https port AWS APIs and a gateway URL without a port of its own are reached on. */
const HTTPS_PORT = 443;

/**
 * The TCP ports the gateway callers must reach: 443 (AWS APIs, and every https URL without a
 * port), and the port of each gateway URL (`https://host:port`) or content host (`host:port`)
 * that names one. Unresolved tokens are skipped: the deployment alone knows them.
 */
export const gatewayEgressPorts = (
  urls: readonly string[],
  hostsWithPorts: readonly string[] = [],
): number[] => {
  const ports = new Set([HTTPS_PORT]);
  for (const url of urls) {
    if (Token.isUnresolved(url) || !URL.canParse(url)) continue;
    const { port } = new URL(url);
    if (port !== '') ports.add(Number(port));
  }
  for (const host of hostsWithPorts) {
    if (Token.isUnresolved(host) || !URL.canParse(`https://${host}`)) continue;
    const { port } = new URL(`https://${host}`);
    if (port !== '') ports.add(Number(port));
  }
  return [...ports].sort((a, b) => a - b);
};

/** The network placement of a function that calls the gateway. */
export interface GatewayPlacement {
  readonly vpc: IVpc;
  readonly vpcSubnets: SubnetSelection;
  readonly securityGroups: ISecurityGroup[];
}

/** What `GatewayEgress` takes from the stack beside the egress options. */
export interface GatewayEgressSettings {
  /**
   * Customer managed key of the VPC flow log group.
   * @default - CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: IKey;
  /**
   * The TCP ports the callers reach (`gatewayEgressPorts`); 443 is always among them.
   * @default [443]
   */
  readonly ports?: readonly number[];
  /**
   * SNS topic that receives the NAT instance's alarms and their return to OK.
   * @default - the alarms recover or reboot the instance without telling anyone
   */
  readonly alarmTopicArn?: string;
}

/**
 * The NAT instance of `nat-instance` mode: Graviton, the smallest size. The NAT is the kernel's
 * connection tracking, which needs neither the memory nor the CPU of a larger size for the gateway
 * callers' traffic (one https request of a few kilobytes per gateway call, 100 a second at a
 * 100 TPS quota); a t4g.micro would double the instance's hour for nothing it uses.
 */
export const NAT_INSTANCE_TYPE = InstanceType.of(InstanceClass.T4G, InstanceSize.NANO);

/** The package install of aws-cdk-lib's NAT script, which `natUserData` retries. */
const NAT_PACKAGE_INSTALL = 'yum install iptables-services -y';

/**
 * aws-cdk-lib's NAT script (`NatInstanceProviderV2.DEFAULT_USER_DATA_COMMANDS`, the Amazon VPC
 * user guide's NAT AMI steps) with its one download retried until it succeeds: on Amazon Linux
 * 2023 a `dnf clean all` of cloud-init can race the install and leave the instance without NAT
 * (aws/aws-cdk#36717, open on 2.276.0), and the Elastic IP's association replaces the launch
 * address while it may be downloading. The script runs once per instance: a reboot would not
 * finish what an install that gave up left undone.
 */
const natUserData = (): UserData => {
  const userData = UserData.forLinux();
  userData.addCommands(
    ...NatInstanceProviderV2.DEFAULT_USER_DATA_COMMANDS.map((command) =>
      command === NAT_PACKAGE_INSTALL ? `until ${NAT_PACKAGE_INSTALL}; do sleep 10; done` : command,
    ),
  );
  return userData;
};

/**
 * The fixed egress of the gateway callers: a VPC with NAT gateways or a NAT instance and Elastic
 * IPs of its own, an existing VPC, or nothing (see `EgressMode`).
 */
export class GatewayEgress extends Construct {
  readonly mode: EgressMode;
  /** Where `GatewayFunction`s go; undefined in `none` mode. */
  readonly placement: GatewayPlacement | undefined;
  /** The source addresses the gateway sees, to register in its console; undefined in `none` mode. */
  readonly egressIps: string[] | undefined;
  /** `nat` and `nat-instance` modes: the VPC msgbridge owns. */
  readonly vpc: Vpc | undefined;
  /** `nat` mode: one per NAT gateway; `nat-instance` mode: the NAT instance's. */
  readonly elasticIps: CfnEIP[] = [];
  /** The gateway callers' security group: outbound https only, nothing inbound. */
  readonly securityGroup: SecurityGroup | undefined;
  /** `nat-instance` mode: the NAT instance. */
  readonly natInstance: Instance | undefined;
  /**
   * `nat-instance` mode: the NAT instance's security group: in from the private subnets and out to
   * the internet, on the callers' ports only.
   */
  readonly natSecurityGroup: ISecurityGroup | undefined;
  /**
   * `nat-instance` mode: the alarms that recover the NAT instance (failed system status check)
   * and reboot it (failed instance status check).
   */
  readonly alarms: Alarm[] = [];

  constructor(
    scope: Construct,
    id: string,
    options: GatewayEgressOptions = {},
    settings: GatewayEgressSettings = {},
  ) {
    super(scope, id);
    throwIfInvalid(
      'GatewayEgress',
      gatewayEgressProblems(options).map((problem) => `egress.${problem}`),
    );
    this.mode = options.mode ?? 'nat';
    const ports = [...new Set([HTTPS_PORT, ...(settings.ports ?? [])])].sort((a, b) => a - b);
    if (this.mode === 'none') {
      Annotations.of(this).addWarning(
        'egress.mode is "none": the functions that call the gateway run outside a VPC, so the gateway sees changing AWS addresses and refuses them (20001/29025) unless each is registered. Use "nat", "nat-instance" or "existing-vpc" for any account that talks to the real gateway.',
      );
      this.placement = undefined;
      this.egressIps = undefined;
      return;
    }

    let vpc: IVpc;
    if (this.mode === 'nat' || this.mode === 'nat-instance') {
      const natGateways = this.mode === 'nat' ? (options.natGateways ?? 1) : 1;
      const maxAzs = options.maxAzs ?? Math.max(2, natGateways);
      // An environment-agnostic stack knows 2 zones only; the VPC would silently get fewer NATs.
      const zones = Math.min(maxAzs, Stack.of(this).availabilityZones.length);
      throwIfInvalid(
        'GatewayEgress',
        natGateways > zones
          ? [
              `egress.natGateways (${natGateways}) needs as many Availability Zones, but the stack can use ${zones}: give the stack an env (account and region) to use 3`,
            ]
          : [],
      );
      const natInstances =
        this.mode === 'nat-instance'
          ? NatProvider.instanceV2({
              instanceType: NAT_INSTANCE_TYPE,
              // CloudFormation reads AWS's public SSM parameter of the newest Amazon Linux 2023
              // image at each deployment: synth needs no credentials, and a deployment after AWS
              // published a newer image replaces the instance with one running it.
              machineImage: MachineImage.latestAmazonLinux2023({
                cpuType: AmazonLinuxCpuType.ARM_64,
              }),
              // No rule but ours below: the default lets anything in from anywhere.
              defaultAllowedTraffic: NatTrafficDirection.NONE,
              userData: natUserData(),
            })
          : undefined;
      if (this.mode === 'nat')
        this.elasticIps = Array.from({ length: natGateways }, (_, index) =>
          egressIp(this, index + 1),
        );
      const flowLogs = new LogGroup(this, 'flow-logs', {
        retention: RetentionDays.ONE_YEAR,
        removalPolicy: RemovalPolicy.DESTROY,
        ...(settings.encryptionKey ? { encryptionKey: settings.encryptionKey } : {}),
      });
      const privateSubnets = { subnetType: SubnetType.PRIVATE_WITH_EGRESS };
      this.vpc = new Vpc(this, 'vpc', {
        maxAzs,
        natGateways,
        natGatewayProvider:
          natInstances ??
          NatProvider.gateway({
            eipAllocationIds: this.elasticIps.map((eip) => eip.attrAllocationId),
          }),
        subnetConfiguration: [
          { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
          { name: 'gateway-callers', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        ],
        // Free, and the callers' DynamoDB and S3 calls then never cross the NAT (neither its
        // per-GB charge nor, for a NAT instance, its bandwidth). Secrets Manager and SQS still
        // do: their interface endpoints cost more a month than that traffic (operations.md).
        gatewayEndpoints: {
          dynamodb: { service: GatewayVpcEndpointAwsService.DYNAMODB, subnets: [privateSubnets] },
          s3: { service: GatewayVpcEndpointAwsService.S3, subnets: [privateSubnets] },
        },
        flowLogs: {
          all: {
            destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
            trafficType: FlowLogTrafficType.ALL,
          },
        },
      });
      vpc = this.vpc;
      if (natInstances) {
        const nat = natInstanceOf(this, this.vpc, natInstances, ports, settings.alarmTopicArn);
        this.natInstance = nat.instance;
        this.natSecurityGroup = nat.securityGroup;
        this.elasticIps = [nat.elasticIp];
        this.alarms = nat.alarms;
      }
      this.egressIps = this.elasticIps.map((eip) => eip.attrPublicIp);
    } else {
      vpc = Vpc.fromVpcAttributes(this, 'vpc', {
        vpcId: options.vpcId as string,
        availabilityZones: [...(options.availabilityZones ?? [])],
        privateSubnetIds: [...(options.privateSubnetIds ?? [])],
      });
      this.vpc = undefined;
      this.egressIps = [...(options.egressIps ?? [])];
    }

    // The functions call the gateway and AWS APIs (DynamoDB, Secrets Manager, S3, SQS), all over
    // https: on 443, and on the port of any gateway URL that names another. DNS goes to the VPC
    // resolver, which security groups do not filter.
    this.securityGroup = new SecurityGroup(this, 'gateway-callers', {
      vpc,
      description: 'msgbridge functions that call the gateway: outbound https only',
      allowAllOutbound: false,
    });
    for (const port of ports)
      this.securityGroup.addEgressRule(
        Peer.anyIpv4(),
        Port.tcp(port),
        port === HTTPS_PORT
          ? 'https to the gateway and AWS APIs'
          : `https to the gateway on port ${port}`,
      );
    this.placement = {
      vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [this.securityGroup],
    };
  }

  /** The addresses as one comma-separated value, for the stack output. */
  get egressIpList(): string | undefined {
    return this.egressIps && Fn.join(',', this.egressIps);
  }
}

/** The `index`th address the gateway sees (logical id `natip<index>` in either NAT mode). */
const egressIp = (scope: Construct, index: number, instanceId?: string): CfnEIP =>
  new CfnEIP(scope, `nat-ip-${index}`, {
    domain: 'vpc',
    ...(instanceId === undefined ? {} : { instanceId }),
    tags: [{ key: 'Name', value: `msgbridge gateway egress ${index}` }],
  });

/**
 * The one NAT instance `NatProvider.instanceV2` made in the VPC, made fit to be the fixed egress:
 * an Elastic IP (the instance's launch address would change with every replacement), IMDSv2
 * only, an encrypted root volume, a security group that forwards only what the private subnets
 * send to the callers' ports, and alarms that recover or reboot it.
 */
const natInstanceOf = (
  scope: Construct,
  vpc: Vpc,
  provider: ReturnType<typeof NatProvider.instanceV2>,
  ports: readonly number[],
  alarmTopicArn: string | undefined,
) => {
  const [instance] = provider.gatewayInstances;
  if (instance === undefined || provider.gatewayInstances.length !== 1)
    throw new Error(`expected one NAT instance, got ${provider.gatewayInstances.length}`);
  const cfnInstance = instance.node.defaultChild as CfnInstance;
  // IMDSv2 only, as an `Instance`'s `httpTokens: HttpTokens.REQUIRED` sets it (its `requireImdsv2`
  // would add a launch template for the same); the provider passes neither on.
  cfnInstance.metadataOptions = { httpTokens: 'required', httpEndpoint: 'enabled' };
  // Amazon Linux 2023's root device, at the image's size, encrypted with the account's EBS key.
  cfnInstance.blockDeviceMappings = [
    { deviceName: '/dev/xvda', ebs: { encrypted: true, volumeType: 'gp3' } },
  ];

  const securityGroup = provider.securityGroup;
  for (const port of ports) {
    for (const subnet of vpc.privateSubnets)
      securityGroup.addIngressRule(
        Peer.ipv4(subnet.ipv4CidrBlock),
        Port.tcp(port),
        `port ${port} from the gateway callers' subnet ${subnet.ipv4CidrBlock}`,
      );
    securityGroup.addEgressRule(
      Peer.anyIpv4(),
      Port.tcp(port),
      port === HTTPS_PORT
        ? 'https to the gateway and AWS APIs (and the package repositories at boot)'
        : `https to the gateway on port ${port}`,
    );
  }

  const elasticIp = egressIp(scope, 1, instance.instanceId);

  // Status checks are sent every minute at no charge, without detailed monitoring.
  const statusCheck = (metricName: string) =>
    new Metric({
      namespace: 'AWS/EC2',
      metricName,
      dimensionsMap: { InstanceId: instance.instanceId },
      statistic: 'Maximum',
      period: Duration.minutes(1),
    });
  const systemCheck = alarmAbove(scope, 'nat-instance-system-check', {
    description:
      'The NAT instance failed its system status check (AWS hardware or host network) for 2 minutes: EC2 recovers it onto another host, keeping its Elastic IP. Gateway calls fail until it is back.',
    anchor: 'a-nat-instance',
    metric: statusCheck('StatusCheckFailed_System'),
    evaluation: 2,
  });
  systemCheck.addAlarmAction(new Ec2Action(Ec2InstanceAction.RECOVER));
  const instanceCheck = alarmAbove(scope, 'nat-instance-check', {
    description:
      'The NAT instance failed its instance status check (its operating system) for 3 minutes: EC2 reboots it. Gateway calls fail until it is back; if it keeps failing, stop and start it.',
    anchor: 'a-nat-instance',
    metric: statusCheck('StatusCheckFailed_Instance'),
    evaluation: 3,
  });
  instanceCheck.addAlarmAction(new Ec2Action(Ec2InstanceAction.REBOOT));
  const alarms = [systemCheck, instanceCheck];
  notifyAlarmTopic(scope, alarmTopicArn, alarms);

  Validations.of(instance).acknowledge({
    id: 'AwsSolutions-EC28',
    reason:
      'Detailed monitoring would add about USD 2 a month to a NAT that exists to cost little; the status checks its alarms read come every minute without it.',
  });
  Validations.of(instance).acknowledge({
    id: 'AwsSolutions-EC29',
    reason:
      'One NAT instance, on purpose (egress.mode "nat-instance"): EC2 recovers or reboots it on a failed status check, and CloudFormation replaces it for a new image, which termination protection would block; "nat" is the mode for zone-independent egress.',
  });
  return { instance, securityGroup, elasticIp, alarms };
};
