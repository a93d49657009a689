/**
 * `msgbridge doctor --stack NAME` on a stack deployed into an existing VPC (a second template),
 * its AWS clients mocked as in test/support/doctor-stack.ts: the DynamoDB and S3 gateway endpoints
 * found on the route table of every caller subnet, and a route table without one failed with the
 * command that adds it.
 */
import { DescribeRouteTablesCommand, DescribeVpcEndpointsCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { synthesizeStack } from '../../local/stack/synthesize.ts';
import {
  deployedAs,
  deploymentOf,
  doctor,
  ec2,
  REGION,
  useDoctorStack,
} from '../support/doctor-stack.ts';

useDoctorStack();

describe('msgbridge doctor --stack, in an existing VPC', () => {
  const VPC = 'vpc-0123456789abcdef0';
  const SUBNETS = ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'];
  const existing = synthesizeStack({
    stackName: 'msgbridge',
    settings: {
      egress: {
        mode: 'existing-vpc',
        vpcId: VPC,
        privateSubnetIds: SUBNETS,
        availabilityZones: ['ap-northeast-2a', 'ap-northeast-2c'],
        egressIps: ['203.0.113.10', '203.0.113.11'],
      },
    },
  });
  const existingModel = deploymentOf(existing.template);

  /** The existing-VPC template as deployed, its subnets in two route tables of their own. */
  const deployedInExistingVpc = () => {
    deployedAs(existing.template, existingModel);
    ec2.on(DescribeRouteTablesCommand).resolves({
      RouteTables: [
        { RouteTableId: 'rtb-main', Associations: [{ Main: true }] },
        { RouteTableId: 'rtb-a', Associations: [{ SubnetId: SUBNETS[0] }] },
        { RouteTableId: 'rtb-b', Associations: [{ SubnetId: SUBNETS[1] }] },
      ],
    });
  };
  const gatewayEndpoint = (id: string, service: string, tables: string[]) => ({
    VpcEndpointId: id,
    VpcEndpointType: 'Gateway' as const,
    ServiceName: `com.amazonaws.${REGION}.${service}`,
    State: 'Available' as const,
    RouteTableIds: tables,
  });

  it('finds the DynamoDB and S3 gateway endpoints on the route table of every caller subnet', async () => {
    deployedInExistingVpc();
    ec2.on(DescribeVpcEndpointsCommand).resolves({
      VpcEndpoints: [
        gatewayEndpoint('vpce-dynamodb', 'dynamodb', ['rtb-a', 'rtb-b']),
        gatewayEndpoint('vpce-s3', 's3', ['rtb-a', 'rtb-b', 'rtb-public']),
      ],
    });

    const { named } = await doctor();

    expect(named('gateway endpoints')).toEqual({
      name: 'gateway endpoints',
      ok: true,
      detail: `${VPC}: DynamoDB and S3 gateway endpoints on the route tables of every caller subnet (rtb-a, rtb-b)`,
    });
    expect(ec2.commandCalls(DescribeVpcEndpointsCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'vpc-id', Values: [VPC] },
      {
        Name: 'service-name',
        Values: [`com.amazonaws.${REGION}.dynamodb`, `com.amazonaws.${REGION}.s3`],
      },
    ]);
    expect(ec2.commandCalls(DescribeRouteTablesCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'vpc-id', Values: [VPC] },
    ]);
  });

  it('names each route table without an endpoint and the command that adds it', async () => {
    deployedInExistingVpc();
    // The second subnet has no table of its own: it uses the VPC's main one.
    ec2.on(DescribeRouteTablesCommand).resolves({
      RouteTables: [
        { RouteTableId: 'rtb-main', Associations: [{ Main: true }] },
        { RouteTableId: 'rtb-a', Associations: [{ SubnetId: SUBNETS[0] }] },
      ],
    });
    ec2.on(DescribeVpcEndpointsCommand).resolves({
      VpcEndpoints: [
        gatewayEndpoint('vpce-dynamodb', 'dynamodb', ['rtb-a']),
        // An interface endpoint of S3 takes no route: it keeps nothing off the NAT.
        { ...gatewayEndpoint('vpce-s3-interface', 's3', []), VpcEndpointType: 'Interface' },
      ],
    });

    const { code, named } = await doctor();

    expect(code).toBe(1);
    expect(named('gateway endpoints')).toEqual({
      name: 'gateway endpoints',
      ok: false,
      detail: `${VPC}: com.amazonaws.${REGION}.dynamodb gateway endpoint vpce-dynamodb is not on rtb-main; no com.amazonaws.${REGION}.s3 gateway endpoint in ${VPC}: the functions' DynamoDB and S3 calls cross the NAT, at its per-GB charge`,
      fix: `aws ec2 modify-vpc-endpoint --vpc-endpoint-id vpce-dynamodb --add-route-table-ids rtb-main; aws ec2 create-vpc-endpoint --vpc-id ${VPC} --vpc-endpoint-type Gateway --service-name com.amazonaws.${REGION}.s3 --route-table-ids rtb-a rtb-main (gateway endpoints cost nothing; docs/operations.md, "Fixed egress")`,
    });
  });
});
