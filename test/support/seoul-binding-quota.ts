/**
 * The quota that binds the bridge in Seoul at a default account's quotas, as the `scale`
 * scenario reports it (bench/quota-ceilings.ts) and the benchmark summary carries it: EventBridge
 * invocations on the publishing path.
 */
export const SEOUL_BINDING_QUOTA = {
  path: 'publishing (publish-events, per stream record)',
  region: 'ap-northeast-2',
  quota: 'invocations',
  name: 'Invocations throttle limit in transactions per second',
  serviceCode: 'events',
  quotaCode: 'L-5540C5E3',
  value: 1_100,
};
