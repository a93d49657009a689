import { isIPv4 } from 'node:net';
import { Annotations, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import {
  CfnEIP,
  FlowLogDestination,
  FlowLogTrafficType,
  type ISecurityGroup,
  type IVpc,
  NatProvider,
  Peer,
  Port,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { integerProblem, throwIfInvalid } from './props-validation.ts';

/**
 * Where the functions that call the gateway send their traffic from:
 * - `nat`: a VPC of msgbridge's own; the functions run in its private subnets behind NAT gateways
 *   whose Elastic IPs the stack creates and outputs (`GatewayEgressIps`).
 * - `existing-vpc`: private subnets of a VPC the platform team already runs, with its own NAT
 *   (or egress firewall) addresses, which the stack cannot read and so is told.
 * - `none`: no VPC; the gateway sees Lambda's changing public addresses, which it refuses unless
 *   every one is registered. For test accounts only.
 */
export type EgressMode = 'none' | 'nat' | 'existing-vpc';

export interface GatewayEgressOptions {
  /**
   * `nat` is what a production deployment needs: the gateway accepts calls only from registered
   * source addresses. It costs money per hour (one NAT gateway and its Elastic IP per
   * `natGateways`, see docs/operations.md "Fixed egress").
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
   * `nat` mode: Availability Zones with a private subnet for the functions, 1 to 3, at least
   * `natGateways`. An environment-agnostic stack can use 2 at most.
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
const NAT_KEYS = ['natGateways', 'maxAzs'] as const;
const MAX_NAT_GATEWAYS = 3;

/** Every problem with the egress options, each named by its path below `egress`. */
export const gatewayEgressProblems = (options: GatewayEgressOptions): string[] => {
  const mode = options.mode ?? 'nat';
  if (!['none', 'nat', 'existing-vpc'].includes(mode))
    return [`mode must be "none", "nat" or "existing-vpc", got ${JSON.stringify(mode)}`];
  const problems: string[] = [];
  const notFor = (keys: readonly (keyof GatewayEgressOptions)[]) => {
    for (const key of keys)
      if (options[key] !== undefined) problems.push(`${key} is not used in "${mode}" mode`);
  };
  if (mode !== 'existing-vpc') notFor(EXISTING_VPC_KEYS);
  if (mode !== 'nat') notFor(NAT_KEYS);
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

/**
 * The fixed egress of the gateway callers: a VPC with NAT gateways and Elastic IPs of its own, an
 * existing VPC, or nothing (see `EgressMode`).
 */
export class GatewayEgress extends Construct {
  readonly mode: EgressMode;
  /** Where `GatewayFunction`s go; undefined in `none` mode. */
  readonly placement: GatewayPlacement | undefined;
  /** The source addresses the gateway sees, to register in its console; undefined in `none` mode. */
  readonly egressIps: string[] | undefined;
  /** `nat` mode: the VPC msgbridge owns. */
  readonly vpc: Vpc | undefined;
  /** `nat` mode: one per NAT gateway. */
  readonly elasticIps: CfnEIP[] = [];
  /** The gateway callers' security group: outbound https only, nothing inbound. */
  readonly securityGroup: SecurityGroup | undefined;

  /**
   * @param encryptionKey - customer managed key of the VPC flow log group (default: CloudWatch
   * Logs' own encryption)
   * @param ports - the TCP ports the callers reach (`gatewayEgressPorts`); default 443 only
   */
  constructor(
    scope: Construct,
    id: string,
    options: GatewayEgressOptions = {},
    encryptionKey?: IKey,
    ports: readonly number[] = [HTTPS_PORT],
  ) {
    super(scope, id);
    throwIfInvalid(
      'GatewayEgress',
      gatewayEgressProblems(options).map((problem) => `egress.${problem}`),
    );
    this.mode = options.mode ?? 'nat';
    if (this.mode === 'none') {
      Annotations.of(this).addWarning(
        'egress.mode is "none": the functions that call the gateway run outside a VPC, so the gateway sees changing AWS addresses and refuses them (20001/29025) unless each is registered. Use "nat" or "existing-vpc" for any account that talks to the real gateway.',
      );
      this.placement = undefined;
      this.egressIps = undefined;
      return;
    }

    let vpc: IVpc;
    if (this.mode === 'nat') {
      const natGateways = options.natGateways ?? 1;
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
      this.elasticIps = Array.from(
        { length: natGateways },
        (_, index) =>
          new CfnEIP(this, `nat-ip-${index + 1}`, {
            domain: 'vpc',
            tags: [{ key: 'Name', value: `msgbridge gateway egress ${index + 1}` }],
          }),
      );
      const flowLogs = new LogGroup(this, 'flow-logs', {
        retention: RetentionDays.ONE_YEAR,
        removalPolicy: RemovalPolicy.DESTROY,
        ...(encryptionKey ? { encryptionKey } : {}),
      });
      this.vpc = new Vpc(this, 'vpc', {
        maxAzs,
        natGateways,
        natGatewayProvider: NatProvider.gateway({
          eipAllocationIds: this.elasticIps.map((eip) => eip.attrAllocationId),
        }),
        subnetConfiguration: [
          { name: 'public', subnetType: SubnetType.PUBLIC, cidrMask: 24 },
          { name: 'gateway-callers', subnetType: SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
        ],
        flowLogs: {
          all: {
            destination: FlowLogDestination.toCloudWatchLogs(flowLogs),
            trafficType: FlowLogTrafficType.ALL,
          },
        },
      });
      vpc = this.vpc;
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
    for (const port of new Set([HTTPS_PORT, ...ports]))
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
