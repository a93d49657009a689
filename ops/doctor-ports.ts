/**
 * What `msgbridge doctor`'s checks (ops/doctor.ts runs them) read a deployment through, the
 * `DoctorSources` that ops/doctor-sources.ts builds for a stack or the local run, what each check
 * reports, and what a run of them is given.
 */
import type { StackTemplate } from '../aws-semantics/cloudformation-template.ts';
import type { AppliedQuota } from './doctor-quotas.ts';

export interface DoctorCheck {
  /** What is checked: `gateway credentials`. */
  readonly name: string;
  /** `true` fine, `false` wrong, `null` not checked here (and why, in `detail`). */
  readonly ok: boolean | null;
  readonly detail: string;
  /** What to do about it, when something is wrong. */
  readonly fix?: string;
}

/** How an answer to a probe looked. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** Where the checks read the deployment; see ops/doctor-sources.ts. */
export interface DoctorSources {
  readonly mode: 'stack' | 'local';
  /** The deployed template (a stack's own, or the one the local run deployed). */
  readonly template: StackTemplate;
  /** A resource's physical id by its logical id (ListStackResources, or the local run's). */
  readonly physicalId: (logicalId: string) => string | undefined;
  readonly secrets: { readonly gatewayCredentials: string; readonly webhook: string };
  /** The webhook URLs with `<secret>` in place of the secret. */
  readonly webhookUrlTemplates: { readonly report: string; readonly mo: string };
  /** The fixed source addresses of gateway calls; undefined when there are none. */
  readonly egressAddresses: readonly string[] | undefined;
  /** Says where the gateway calls come from when there are no fixed addresses. */
  readonly egressNote: string;
  /**
   * The route table of each of `subnetIds` and the VPC's DynamoDB and S3 gateway endpoints (EC2
   * DescribeRouteTables and DescribeVpcEndpoints); absent locally.
   */
  gatewayEndpoints?(vpcId: string, subnetIds: readonly string[]): Promise<GatewayEndpoints>;
  /** A secret's string value; undefined when it has none. */
  secretText(secretId: string): Promise<string | undefined>;
  /** The gateway token item of the state table; undefined when there is none. */
  tokenItem(): Promise<Record<string, unknown> | undefined>;
  post(url: string, body: string): Promise<HttpAnswer>;
  /** An event source mapping's `State` and `LastProcessingResult`. */
  mapping(
    logicalId: string,
  ): Promise<{ readonly state: string; readonly lastProcessingResult: string | undefined }>;
  /** Messages in a queue: visible, in flight and delayed. */
  queueDepth(queueUrl: string): Promise<number>;
  /** A schedule's `State`. */
  schedule(logicalId: string): Promise<string>;
  /** The alarms' states by name; absent where there are no alarms (the local run). */
  alarms?(names: readonly string[]): Promise<ReadonlyArray<{ name: string; state: string }>>;
  /** The account's concurrency quota and what is left unreserved; absent locally. */
  accountConcurrency?(): Promise<{ readonly limit: number; readonly unreserved: number }>;
  /** A quota's applied value from Service Quotas (its default when none is applied); absent locally. */
  appliedQuota?(serviceCode: string, quotaCode: string): Promise<AppliedQuota>;
  /** Runs refresh-token once and returns its error message, if any (`--invoke`). */
  invokeRefreshToken?(): Promise<{ readonly error: string | undefined }>;
}

/** The services whose gateway endpoints keep the callers' calls off the NAT. */
export const GATEWAY_ENDPOINT_SERVICES = ['dynamodb', 's3'] as const;
export type GatewayEndpointService = (typeof GATEWAY_ENDPOINT_SERVICES)[number];

/** What the doctor reads of a VPC it did not create (`existing-vpc` mode). */
export interface GatewayEndpoints {
  /** The Region of the service names, `com.amazonaws.<region>.dynamodb`. */
  readonly region: string;
  /** Each subnet's route table: its own association, else the VPC's main table. */
  readonly routeTables: Readonly<Record<string, string>>;
  /** The VPC's available gateway endpoints of each service, with the route tables they are on. */
  readonly endpoints: Readonly<
    Record<GatewayEndpointService, ReadonlyArray<{ id: string; routeTableIds: readonly string[] }>>
  >;
}

export interface DoctorOptions {
  readonly now: Date;
  /** Run refresh-token once, from the egress addresses, to see what the gateway answers. */
  readonly invoke?: boolean;
}
