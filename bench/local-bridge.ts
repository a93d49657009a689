/**
 * The local run as the scenarios that drive it start it: ephemeral ports, the bench's own
 * credentials and webhook secret, no event lines printed. Each adds its quota and hooks.
 */
export const benchBridgeOptions = (dataDir: string) =>
  ({
    port: 0,
    simulatorPort: 0,
    webhookSecret: 'bench-secret-0123456789',
    dataDir,
    apiKey: 'bench-key',
    apiPassword: 'bench-password',
    printEvents: false,
  }) as const;
