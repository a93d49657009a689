/**
 * The credential provider of the bundled Lambdas: the role's credentials from the environment
 * variables Lambda sets (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`).
 *
 * Every SDK client's runtime configuration imports `@aws-sdk/credential-provider-node`, the whole
 * default chain (SSO, shared files, processes, web identity, container and instance metadata, with
 * the STS and SSO clients they call), for a function that only ever finds its credentials in its
 * environment. The bundling settings (`lib/bundling.ts`) put this module in that one's place, so
 * a bundle carries and evaluates only the provider it uses. The local run and the tests import the
 * SDK unbundled and keep the whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** What the SDK calls `credentialDefaultProvider(config)` with; only the logger is used. */
type ProviderInit = Parameters<typeof fromEnv>[0];

/** The default chain's name and call shape, so that the client configuration finds it. */
export const defaultProvider = (init?: ProviderInit) => fromEnv(init);
