/**
 * The shape of the `msgbridge` CDK context object (lib/context-schema.ts), derived from the props
 * interfaces as the props reference reads them (scripts/props-reference.ts): every prop of
 * `MsgBridgeProps` and of each props interface it holds, so that a prop is declared once, with its
 * type, its doc comment and its `@default`, and `cdk.json` can set it. Run
 * `npm run generate:context`; a unit test fails when the committed module differs.
 *
 * JSON has no `Duration` or `RetentionDays`: a `Duration` prop is read from `<prop>Seconds`, a
 * `RetentionDays` prop from `<prop>Days` (one of the periods CloudWatch Logs accepts), and the two
 * alarm targets from one `alarms` object. Only the shape is checked; the stack checks the values
 * with the rest of its props.
 */
import { formatted } from './event-types.ts';
import type { PropEntry, PropShape, PropsSection } from './props-reference.ts';

export const CONTEXT_SCHEMA_PATH = 'lib/context-schema.ts';

/** Props of `MsgBridgeProps` that the context groups in one object: `alarms.topicArn`. */
const GROUPS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  alarms: { topicArn: 'alarmTopicArn', emails: 'alarmEmails' },
};

/**
 * The lists that spell a union of strings at run time, by the union's name: the schema names the
 * list rather than repeat its values. The type checker holds the schema's output to the props.
 */
const VALUE_LISTS: Readonly<Record<string, { readonly list: string; readonly module: string }>> = {
  EgressMode: { list: 'EGRESS_MODES', module: './gateway-egress.ts' },
  MessengerStatsName: {
    list: 'MESSENGER_STATISTIC_NAMES',
    module: '../functions/catalogue/messenger-statistic-names.ts',
  },
};

/** What the schema of a context object is written from, and the value lists it names. */
interface Writing {
  readonly sections: ReadonlyMap<string, PropsSection>;
  readonly lists: Set<string>;
}

/** The context's name of a prop whose type JSON cannot hold. */
const contextName = (prop: string, shape: PropShape) =>
  shape.kind === 'Duration'
    ? `${prop}Seconds`
    : shape.kind === 'RetentionDays'
      ? `${prop}Days`
      : prop;

const nameOf = (entry: PropEntry) => entry.path.slice(entry.path.lastIndexOf('.') + 1);

/** A field of a context object: the key, its schema, and the prop it gives when it differs. */
interface Field {
  readonly key: string;
  readonly schema: string;
  /** `functionTimeout` for `functionTimeoutSeconds`; each prop of a group by its key in it. */
  readonly gives?: string | Readonly<Record<string, string>>;
  /** Where the props interface it holds is declared. */
  readonly doc?: string;
}

const schemaOf = (shape: PropShape, path: string, writing: Writing): string => {
  switch (shape.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      return `z.${shape.kind}()`;
    case 'oneOf': {
      const named = shape.alias === undefined ? undefined : VALUE_LISTS[shape.alias];
      if (shape.alias !== undefined && named) {
        writing.lists.add(shape.alias);
        return `z.enum(${named.list})`;
      }
      return `z.enum([${shape.values.map((value) => `'${value}'`).join(', ')}])`;
    }
    case 'list':
      return `z.array(${schemaOf(shape.of, `${path}[]`, writing)})`;
    case 'Duration':
      return 'seconds';
    case 'RetentionDays':
      return 'retentionDays';
    case 'props': {
      const section = writing.sections.get(shape.name);
      if (!section) throw new Error(`${path}: no props section for ${shape.name}`);
      return objectSchema(section.props, writing);
    }
    default:
      throw new Error(
        `${path}: the context cannot give a ${shape.text}; say in scripts/context-schema.ts how JSON holds it`,
      );
  }
};

const objectSchema = (
  props: readonly PropEntry[],
  writing: Writing,
  groups: typeof GROUPS = {},
): string => {
  const grouped = new Map(
    Object.entries(groups).flatMap(([group, members]) =>
      Object.entries(members).map(([key, prop]) => [prop, { group, key }] as const),
    ),
  );
  const fields: Field[] = [];
  for (const entry of props) {
    const prop = nameOf(entry);
    const read = schemaOf(entry.shape, entry.path, writing);
    const schema = entry.required ? read : `z.optional(${read})`;
    const inGroup = grouped.get(prop);
    if (inGroup === undefined) {
      const key = contextName(prop, entry.shape);
      const section =
        entry.shape.kind === 'props' ? writing.sections.get(entry.shape.name) : undefined;
      fields.push({
        key,
        schema,
        ...(section ? { doc: `\`${section.name}\` (${section.file})` } : {}),
        ...(key === prop ? {} : { gives: prop }),
      });
      continue;
    }
    // A group is written where its first prop is declared.
    const members = props.filter((each) => grouped.get(nameOf(each))?.group === inGroup.group);
    if (members[0] !== entry) continue;
    const inner = members.map(
      (member) =>
        `${grouped.get(nameOf(member))?.key}: z.optional(${schemaOf(member.shape, member.path, writing)})`,
    );
    fields.push({
      key: inGroup.group,
      schema: `z.optional(z.strictObject({ ${inner.join(', ')} }))`,
      gives: groups[inGroup.group],
    });
  }
  const lines = fields.map(
    (field) => `${field.doc ? `/** ${field.doc} */\n` : ''}${field.key}: ${field.schema},`,
  );
  const shape = `z.strictObject({\n${lines.join('\n')}\n})`;
  const renamed = fields.filter((field) => field.gives !== undefined);
  if (renamed.length === 0) return shape;
  const taken = renamed.map((field) =>
    typeof field.gives === 'string' ? `${field.key}: ${field.gives}` : field.key,
  );
  const given = renamed.flatMap((field) =>
    typeof field.gives === 'string'
      ? [field.gives]
      : Object.entries(field.gives ?? {}).map(([key, prop]) => `${prop}: ${field.key}?.${key}`),
  );
  return `z.pipe(${shape}, z.transform(({ ${taken.join(', ')}, ...rest }) => defined({ ...rest, ${given.join(', ')} })))`;
};

/** lib/context-schema.ts, before formatting. */
const renderSource = (sections: readonly PropsSection[]): string => {
  const [root] = sections;
  if (!root) throw new Error('no props sections');
  const writing: Writing = {
    sections: new Map(sections.map((section) => [section.name, section])),
    lists: new Set(),
  };
  const schema = objectSchema(root.props, writing, GROUPS);
  // In the order Biome sorts them: by module, `../` before `./`.
  const imports = [
    ...[...writing.lists].map((alias) => VALUE_LISTS[alias] ?? { list: '', module: '' }),
    { list: 'defined, retentionDays, seconds', module: './context-fields.ts' },
    { list: '* as z', module: '../gateway/schemas/zod.ts' },
  ]
    .sort((a, b) => (a.module < b.module ? -1 : 1))
    .map(({ list, module }) =>
      list.startsWith('*')
        ? `import ${list} from '${module}';\n`
        : `import { ${list} } from '${module}';\n`,
    );
  return `// Generated by \`npm run generate:context\` (scripts/context-schema.ts) from the props interfaces; do not edit by hand.
/**
 * The shape of the \`msgbridge\` context object, read by \`stackPropsFromContext\`
 * (lib/context-props.ts), written from the props interfaces, so every prop of \`MsgBridgeProps\`
 * can be set from \`cdk.json\` under the same name: a \`Duration\` as \`<prop>Seconds\`, a
 * \`RetentionDays\` as \`<prop>Days\`, the alarm targets as \`alarms.topicArn\` and \`alarms.emails\`.
 * Unknown keys are refused, so that a misspelt setting is not silently ignored; the stack checks
 * the values with the rest of its props. Edit the interfaces, then run the script.
 */
${imports.join('')}
/** The \`msgbridge\` context object, parsed into the props of \`${root.name}\` it sets. */
export const ContextSchema = ${schema};
`;
};

/** lib/context-schema.ts from the props interfaces, formatted as committed. */
export const renderContextSchema = (sections: readonly PropsSection[]): string =>
  formatted(renderSource(sections), CONTEXT_SCHEMA_PATH);
