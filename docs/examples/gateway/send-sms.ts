/*
 * The gateway client of this repository (gateway/), on its own: a token from the API key and
 * password, then one SMS. Run from the repository root with `npx tsx docs/examples/gateway/send-sms.ts`
 * and GATEWAY_API_URL, GATEWAY_SEND_URL, GATEWAY_MNT_URL, GATEWAY_API_KEY and
 * GATEWAY_API_PASSWORD set (the simulator's, `npm run simulator`, or your test environment's).
 */
import { SessionTokenProvider } from '../../../gateway/bearer/session-token-provider.ts';
import { GatewayClient } from '../../../gateway/client.ts';
import { GatewayAuthApi } from '../../../gateway/token-api.ts';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const hosts = {
  api: setting('GATEWAY_API_URL'),
  send: setting('GATEWAY_SEND_URL'),
  mnt: setting('GATEWAY_MNT_URL'),
};
const apiKey = setting('GATEWAY_API_KEY');
const apiPassword = setting('GATEWAY_API_PASSWORD');

const auth = new GatewayAuthApi({ hosts });
const tokens = new SessionTokenProvider({ auth, credentials: () => ({ apiKey, apiPassword }) });
const client = new GatewayClient({ hosts, tokens, apiKey, timeoutMs: 10_000 });

const outcome = await client.sendSms({
  callback: '0212345678',
  msg: '안녕하세요',
  recvInfoLst: [{ cliKey: 'order-1', phone: '01012345678' }],
});
if (outcome.kind === 'immediate')
  for (const result of outcome.results) console.log(result.cliKey, result.code);
