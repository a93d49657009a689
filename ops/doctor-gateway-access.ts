/**
 * `msgbridge doctor`'s checks of the bridge's access to the gateway: the credentials secret filled
 * in with the shape refresh-token reads (never its value shown), a valid token in the state table,
 * and the egress addresses the gateway accepts calls from (`--invoke` asks it, by running
 * refresh-token once).
 */
import { GatewayCredentialsSchema } from '../functions/gateway-access/gateway-credentials.ts';
import { StoredTokenSchema } from '../functions/gateway-access/token-state.ts';
import type { DoctorCheck, DoctorOptions, DoctorSources } from './doctor-ports.ts';

/** A token renewed within this long shows the gateway accepted a call from the egress addresses. */
const RECENT_TOKEN_MS = 60 * 60_000;
/** The gateway's codes for a source address it does not accept (field notes). */
const ADDRESS_REFUSED = /\b(20001|29025)\b/;

const minutes = (ms: number) => Math.round(ms / 60_000);

const putSecretFix = (sources: DoctorSources) =>
  sources.mode === 'stack'
    ? `aws secretsmanager put-secret-value --secret-id ${sources.secrets.gatewayCredentials} --secret-string '{"apiKey":"…","apiPassword":"…"}'`
    : 'restart npm start: the local run writes the simulator credentials (SIMULATOR_API_KEY, SIMULATOR_API_PASSWORD) into the secret';

/** The credentials secret holds `{"apiKey", "apiPassword"}` (its value is never shown). */
export const credentialsCheck = async (sources: DoctorSources): Promise<DoctorCheck> => {
  const name = 'gateway credentials';
  let text: string | undefined;
  try {
    text = await sources.secretText(sources.secrets.gatewayCredentials);
  } catch (error) {
    return {
      name,
      ok: false,
      detail: `the secret ${sources.secrets.gatewayCredentials} could not be read: ${(error as Error).message}`,
      fix: 'the credentials this command runs with need secretsmanager:GetSecretValue on it (and kms:Decrypt on its key)',
    };
  }
  if (text === undefined)
    return { name, ok: false, detail: 'the secret has no value', fix: putSecretFix(sources) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // Never the value: only whether it has the shape refresh-token reads.
  const parsed = GatewayCredentialsSchema.safeParse(json);
  if (!parsed.success)
    return {
      name,
      ok: false,
      detail:
        json === undefined
          ? 'the secret is not JSON (a generated random string until someone fills it in)'
          : `the secret is JSON but not {"apiKey", "apiPassword"} (${parsed.error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ')})`,
      fix: putSecretFix(sources),
    };
  return { name, ok: true, detail: 'filled in, {"apiKey", "apiPassword"}' };
};

/** The state table's gateway token: undefined when there is none, `'unreadable'` if not a token. */
export const readToken = async (sources: DoctorSources) => {
  const item = await sources.tokenItem();
  if (item === undefined) return undefined;
  const parsed = StoredTokenSchema.safeParse(item);
  return parsed.success ? parsed.data : ('unreadable' as const);
};

/** The token is there and not expired; the fix depends on the credentials being filled in. */
export const tokenCheck = (
  token: Awaited<ReturnType<typeof readToken>>,
  now: Date,
  credentialsOk: boolean,
): DoctorCheck => {
  const name = 'gateway token';
  const why = credentialsOk
    ? 'refresh-token runs every 5 minutes: if none comes, the gateway refuses its calls (see the egress check) or its logs say why'
    : 'fill in the gateway credentials first; refresh-token obtains a token within 5 minutes';
  if (token === undefined)
    return { name, ok: false, detail: 'no token in the state table', fix: why };
  if (token === 'unreadable')
    return {
      name,
      ok: false,
      detail: 'the token item in the state table is unreadable',
      fix: `${why}; it replaces an unreadable item`,
    };
  const left = token.accessExpiresAt - now.getTime();
  const renewed = new Date(token.updatedAt).toISOString();
  if (left <= 0)
    return {
      name,
      ok: false,
      detail: `expired ${minutes(-left)} min ago (last renewed ${renewed})`,
      fix: why,
    };
  return {
    name,
    ok: true,
    detail: `valid for ${minutes(left)} more min, renewed ${renewed}`,
  };
};

/**
 * The gateway accepts calls from the egress addresses: shown by a token renewed within the hour,
 * or asked with `--invoke`.
 */
export const egressCheck = async (
  sources: DoctorSources,
  token: Awaited<ReturnType<typeof readToken>>,
  options: DoctorOptions,
): Promise<DoctorCheck> => {
  const name = 'egress addresses';
  const addresses = sources.egressAddresses;
  const listed = addresses === undefined ? sources.egressNote : addresses.join(', ');
  const register =
    addresses === undefined
      ? 'give the stack fixed egress (gateway.egress: "nat" or an existing VPC) and register its addresses'
      : `register ${addresses.join(', ')} in the gateway console`;
  if (options.invoke && sources.invokeRefreshToken) {
    const { error } = await sources.invokeRefreshToken();
    if (error === undefined)
      return {
        name,
        ok: true,
        detail: `${listed}: refresh-token ran now and the gateway accepted its calls`,
      };
    const refused = ADDRESS_REFUSED.exec(error);
    return refused
      ? {
          name,
          ok: false,
          detail: `${listed}: the gateway refuses calls from them (${refused[1]})`,
          fix: register,
        }
      : { name, ok: false, detail: `${listed}: refresh-token failed: ${error}`, fix: register };
  }
  const recent =
    typeof token === 'object' && options.now.getTime() - token.updatedAt <= RECENT_TOKEN_MS;
  if (recent)
    return {
      name,
      ok: true,
      detail: `${listed}: the gateway accepted refresh-token's call from them at ${new Date(token.updatedAt).toISOString()}`,
    };
  return {
    name,
    ok: false,
    detail: `${listed}: no token renewed within the last hour, so nothing shows the gateway accepts them`,
    fix: `${register}; then \`msgbridge doctor --invoke\` runs refresh-token once and shows the gateway's answer (20001 or 29025: an address it does not accept)`,
  };
};
