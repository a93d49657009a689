import { Construct } from 'constructs';
import { throwIfInvalid } from './props-validation.ts';

/** The CloudWatch namespace of the functions' metrics when `metricsNamespace` is not set. */
export const DEFAULT_METRICS_NAMESPACE = 'msgbridge';

/**
 * A construct with alarms on the functions' own metrics. It checks its props before it builds
 * anything, naming every problem in one `InvalidPropsError`, and reads every metric from the
 * namespace the functions publish to.
 */
export abstract class MonitoredConstruct extends Construct {
  /** CloudWatch namespace of the functions' metrics and of the alarms on them. */
  protected readonly metricsNamespace: string;

  /**
   * @param construct - the construct's name in the error
   * @param problems - every problem with `props`; none, and the construct is built
   */
  protected constructor(
    scope: Construct,
    id: string,
    construct: string,
    props: { readonly metricsNamespace?: string },
    problems: readonly string[],
  ) {
    super(scope, id);
    throwIfInvalid(construct, problems);
    this.metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
  }
}
