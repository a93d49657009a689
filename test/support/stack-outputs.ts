/**
 * The outputs of a deployed msgbridge stack as CloudFormation's DescribeStacks lists them: the
 * gateway hosts as JSON, every other output `value-of-<name>`.
 */
export const stackOutputs = (names: readonly string[]) =>
  names.map((name) => ({
    OutputKey: name,
    OutputValue:
      name === 'GatewayHosts'
        ? JSON.stringify({
            api: 'https://a.example',
            send: 'https://s.example',
            mnt: 'https://m.example',
          })
        : `value-of-${name}`,
  }));
