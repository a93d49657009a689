import { ContextSchema } from './context-schema.ts';
import { type MsgBridgeProps, msgBridgeProblems } from './msgbridge-props.ts';
import { InvalidPropsError } from './props-validation.ts';

/** The CDK context key read by `bin/msgbridge.ts`. */
export const CONTEXT_KEY = 'msgbridge';

/** The stack props the context sets: every prop of the construct (lib/context-schema.ts). */
export type ContextStackProps = Mutable<MsgBridgeProps>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The stack props given by the `msgbridge` context object (from `cdk.json`, or a JSON string from
 * `--context msgbridge=...`). Throws one `InvalidPropsError` naming every missing or mistyped
 * setting by its path.
 */
export const stackPropsFromContext = (value: unknown): ContextStackProps => {
  const where = `context "${CONTEXT_KEY}"`;
  if (value === undefined)
    throw new InvalidPropsError(where, [
      'is missing: add {"gateway": {"hosts": {"api", "send", "mnt"}, "tpsQuota"}} to the context in cdk.json',
    ]);
  let object = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch {
      throw new InvalidPropsError(where, ['is a string that is not JSON']);
    }
  }
  const parsed = ContextSchema.safeParse(object);
  if (parsed.success) return parsed.data;
  throw new InvalidPropsError(
    where,
    parsed.error.issues.map(
      (issue) => `${[CONTEXT_KEY, ...issue.path.map(String)].join('.')}: ${issue.message}`,
    ),
  );
};

/** The stack name of this repository's app unless the context key `stackName` sets another. */
export const DEFAULT_STACK_NAME = 'msgbridge';

/** The context keys `bin/msgbridge.ts` reads beside the `msgbridge` object. */
export const APP_CONTEXT_KEYS = { stackName: 'stackName', account: 'account', region: 'region' };

/** What `bin/msgbridge.ts` deploys: the stack's name, its environment and the construct's props. */
export interface AppSettings {
  /** The stack's name, and its construct id: `npx cdk deploy <stackName>`. */
  readonly stackName: string;
  /** Absent, the stack is environment-agnostic: the deploying credentials choose. */
  readonly env?: { account?: string; region?: string };
  readonly props: ContextStackProps;
}

/** CloudFormation's rule for a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;
const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * The app's settings from the CDK context: `stackName` (default `msgbridge`), `account` and
 * `region` (each optional; `-c account=123456789012 -c region=ap-northeast-2`), and the
 * `msgbridge` object. Throws one `InvalidPropsError` naming every problem of all of them, the
 * values of the `msgbridge` settings included.
 */
export const appSettingsFromContext = (context: (key: string) => unknown): AppSettings => {
  const problems: string[] = [];
  const text = (key: string, pattern: RegExp, rule: string): string | undefined => {
    const value = context(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string' && pattern.test(value)) return value;
    problems.push(`${key} must be ${rule}, got ${JSON.stringify(value)}`);
    return undefined;
  };
  const stackName =
    text(
      APP_CONTEXT_KEYS.stackName,
      STACK_NAME,
      'a CloudFormation stack name (a letter, then letters, digits and hyphens, at most 128)',
    ) ?? DEFAULT_STACK_NAME;
  const account = text(APP_CONTEXT_KEYS.account, ACCOUNT, 'a 12-digit AWS account id');
  const region = text(APP_CONTEXT_KEYS.region, REGION, 'an AWS region such as ap-northeast-2');
  let props: ContextStackProps | undefined;
  try {
    props = stackPropsFromContext(context(CONTEXT_KEY));
  } catch (error) {
    if (!(error instanceof InvalidPropsError)) throw error;
    problems.push(...error.problems.map((problem) => `${error.construct}: ${problem}`));
  }
  // The values too, as the construct will check them, so that one error lists everything.
  if (props !== undefined)
    problems.push(...msgBridgeProblems(props).map((problem) => `${CONTEXT_KEY}.${problem}`));
  if (problems.length > 0 || props === undefined) throw new InvalidPropsError('context', problems);
  const env = { ...(account && { account }), ...(region && { region }) };
  return { stackName, ...(Object.keys(env).length > 0 ? { env } : {}), props };
};
