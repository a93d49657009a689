/** What the infrastructure tests read from a synthesized template: IAM statements and their actions, and the problems invalid props are refused with. */
import { App, CfnElement, type Stack, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll } from 'vitest';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';
import { InvalidPropsError } from '../../lib/props-validation.ts';
import { TEST_GATEWAY } from '../infra/fixtures/gateway.ts';

/** An IAM policy statement as CloudFormation holds it. */
export interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Principal?: unknown;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

export const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

export const withPrefix = (statements: Statement[], prefix: string): Statement[] =>
  statements.filter((statement) =>
    actionsOf(statement).some((action) => action.startsWith(prefix)),
  );

/** The statements of every policy attached to the role with logical id `roleId`. */
export const statementsOfRole = (template: Template, roleId: string): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

export const allStatements = (template: Template): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );

/** The problems `act` is refused with; fails when it throws nothing or something else. */
export const problemsOf = (act: () => unknown): readonly string[] => {
  try {
    act();
  } catch (error) {
    if (error instanceof InvalidPropsError) return error.problems;
    throw error;
  }
  throw new Error('expected an InvalidPropsError');
};

/** The problems a `MsgbridgeStack` with `props` (on the test gateway unless they name another) is refused with. */
export const stackProblems = (props: Partial<MsgbridgeStackProps>): readonly string[] =>
  problemsOf(() => new MsgbridgeStack(new App(), 'invalid', { gateway: TEST_GATEWAY, ...props }));

/** The logical id in `stack` of a construct's CloudFormation element (its default child, or itself). */
export const logicalId = (stack: Stack, construct: IConstruct | undefined): string => {
  const element = construct?.node.defaultChild ?? construct;
  if (!CfnElement.isCfnElement(element)) throw new Error('no CloudFormation element');
  return stack.getLogicalId(element);
};

/**
 * The cdk-nag findings acknowledged on `constructs`: each by its path below the `MsgBridge` of the
 * stack named `stackName` (which `MsgbridgeStack` holds as `Default`), its rule and the reason given.
 */
export const acknowledgedFindings = (constructs: readonly IConstruct[], stackName: string) =>
  constructs.flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({
          path: construct.node.path.replace(`${stackName}/Default/`, ''),
          rule: rule.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );

/**
 * The stacks `synthesize` returns, synthesized once before the enclosing describe's tests (each
 * synthesis takes seconds): read them inside the tests, not while the tests are collected.
 */
export const synthesizedBeforeAll = <T extends object>(
  synthesize: () => T,
  timeoutMs?: number,
): Readonly<T> => {
  const stacks = {} as T;
  beforeAll(() => {
    Object.assign(stacks, synthesize());
  }, timeoutMs);
  return stacks;
};
