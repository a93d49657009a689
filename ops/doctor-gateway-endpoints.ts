/**
 * `msgbridge doctor`'s check that the gateway callers' DynamoDB and S3 calls stay off the NAT: the
 * stack's own gateway endpoints, as its template declares them, or in an existing VPC the VPC's
 * endpoints on the route table of every caller subnet, with the command that adds a missing one.
 */
import {
  referencedId,
  resourcesOfType,
  type StackTemplate,
} from '../aws-semantics/cloudformation-template.ts';
import {
  type DoctorCheck,
  type DoctorSources,
  GATEWAY_ENDPOINT_SERVICES,
  type GatewayEndpointService,
} from './doctor-ports.ts';

/** The gateway callers' subnets and VPC, as the template gives them to the functions. */
const callerNetwork = (template: StackTemplate) => {
  const configs = template
    .functions()
    .filter((fn) => fn.inVpc)
    .map(
      (fn) =>
        template.resource(fn.logicalId).Properties?.VpcConfig as {
          SubnetIds?: unknown[];
          SecurityGroupIds?: unknown[];
        },
    );
  const subnetIds = [...new Set(configs.flatMap((config) => config.SubnetIds ?? []))];
  const groupId = referencedId(configs[0]?.SecurityGroupIds?.[0]);
  const vpcId = groupId && template.resource(groupId).Properties?.VpcId;
  return { inVpc: configs.length > 0, subnetIds, vpcId };
};

/** The stack's own gateway endpoints of each service (`nat` and `nat-instance` modes). */
const templateEndpoints = (template: StackTemplate): GatewayEndpointService[] =>
  GATEWAY_ENDPOINT_SERVICES.filter((service) =>
    resourcesOfType(template.template, 'AWS::EC2::VPCEndpoint').some(
      ([, endpoint]) =>
        (endpoint.Properties?.VpcEndpointType ?? 'Gateway') === 'Gateway' &&
        JSON.stringify(endpoint.Properties?.ServiceName).includes(`.${service}"`),
    ),
  );

/**
 * Whether the gateway callers' DynamoDB and S3 calls stay off the NAT: in a VPC the stack created,
 * its template says so; in an existing VPC, the VPC's endpoints must be on the route table of
 * every subnet the callers run in. Without them the calls still work, through the NAT and at its
 * per-GB charge (a NAT instance's bandwidth too).
 */
export const gatewayEndpointCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'gateway endpoints';
  if (sources.mode === 'local')
    return {
      name,
      ok: null,
      detail: 'the local run has no VPC: its functions call the local endpoints',
    };
  const { inVpc, subnetIds, vpcId } = callerNetwork(sources.template);
  if (!inVpc)
    return { name, ok: null, detail: 'the gateway callers run outside a VPC (egress.mode "none")' };
  const own = templateEndpoints(sources.template);
  if (own.length === GATEWAY_ENDPOINT_SERVICES.length)
    return {
      name,
      ok: true,
      detail:
        'DynamoDB and S3 gateway endpoints on the private subnets’ route tables, created by the stack',
    };
  const literal = (value: unknown): value is string => typeof value === 'string';
  if (!literal(vpcId) || !subnetIds.every(literal))
    return {
      name,
      ok: false,
      detail: `the stack created its VPC without a ${GATEWAY_ENDPOINT_SERVICES.filter((service) => !own.includes(service)).join(' or ')} gateway endpoint`,
      fix: 'deploy this msgbridge version, which adds both',
    };
  if (!sources.gatewayEndpoints)
    return { name, ok: null, detail: `${vpcId} is not read from here` };
  const found = await sources.gatewayEndpoints(vpcId, subnetIds);
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const service of GATEWAY_ENDPOINT_SERVICES) {
    const endpoints = found.endpoints[service];
    const serviceName = `com.amazonaws.${found.region}.${service}`;
    const missing = [
      ...new Set(
        subnetIds
          .map((subnet) => found.routeTables[subnet])
          .filter(
            (table): table is string =>
              table !== undefined &&
              !endpoints.some((endpoint) => endpoint.routeTableIds.includes(table)),
          ),
      ),
    ];
    const unrouted = subnetIds.filter((subnet) => found.routeTables[subnet] === undefined);
    if (unrouted.length > 0)
      problems.push(`${service}: no route table found for ${unrouted.join(', ')}`);
    if (missing.length === 0) continue;
    problems.push(
      endpoints.length === 0
        ? `no ${serviceName} gateway endpoint in ${vpcId}`
        : `${serviceName} gateway endpoint ${endpoints.map((endpoint) => endpoint.id).join(', ')} is not on ${missing.join(', ')}`,
    );
    const [first] = endpoints;
    fixes.push(
      first === undefined
        ? `aws ec2 create-vpc-endpoint --vpc-id ${vpcId} --vpc-endpoint-type Gateway --service-name ${serviceName} --route-table-ids ${missing.join(' ')}`
        : `aws ec2 modify-vpc-endpoint --vpc-endpoint-id ${first.id} --add-route-table-ids ${missing.join(' ')}`,
    );
  }
  const tables = [...new Set(Object.values(found.routeTables))].join(', ');
  return problems.length === 0
    ? {
        name,
        ok: true,
        detail: `${vpcId}: DynamoDB and S3 gateway endpoints on the route table${tables.includes(',') ? 's' : ''} of every caller subnet (${tables})`,
      }
    : {
        name,
        ok: false,
        detail: `${vpcId}: ${problems.join('; ')}: the functions' DynamoDB and S3 calls cross the NAT, at its per-GB charge`,
        fix: `${fixes.join('; ') || 'check the subnets in egress.privateSubnetIds'} (gateway endpoints cost nothing; docs/operations.md, "Fixed egress")`,
      };
};
