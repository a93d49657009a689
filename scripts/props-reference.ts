/**
 * The props reference (docs/props.md) read from the declarations themselves: every prop of
 * `MsgBridgeProps` and of each props interface it holds, with its type, its `@default` and its
 * doc comment, by the TypeScript compiler. `npm run docs:props` writes the page; a unit test
 * fails when the committed page differs from what the code says.
 */
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..');
const PROPS_FILE = join(ROOT, 'lib/msgbridge-props.ts');
export const PROPS_REFERENCE_PATH = 'docs/props.md';

/** One prop as the reference lists it. */
export interface PropEntry {
  /** Its path from the construct's props: `sending.maxConcurrency`. */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  /** The `@default` tag's text; undefined when the prop has none. */
  readonly defaultValue: string | undefined;
  readonly description: string;
  /** What the type is made of, for the readers that derive from the props (the context schema). */
  readonly shape: PropShape;
}

/**
 * A prop's type by its parts: a JSON value, a union of strings, a list, another props interface
 * (its section), a CDK value (`Duration`, `RetentionDays`), or anything else by its text.
 */
export type PropShape =
  | { readonly kind: 'string' | 'number' | 'boolean' }
  | { readonly kind: 'oneOf'; readonly values: readonly string[]; readonly alias?: string }
  | { readonly kind: 'list'; readonly of: PropShape }
  | { readonly kind: 'props'; readonly name: string }
  | { readonly kind: 'Duration' | 'RetentionDays' }
  | { readonly kind: 'other'; readonly text: string };

/** A props interface and its props, in declaration order. */
export interface PropsSection {
  /** The path of the prop whose type it is (`''` for `MsgBridgeProps` itself). */
  readonly path: string;
  readonly name: string;
  readonly file: string;
  readonly description: string;
  readonly props: readonly PropEntry[];
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** The interface a prop's type names, when it is one of the project's own (not the CDK's). */
const ownInterface = (type: ts.Type): ts.InterfaceDeclaration | undefined => {
  const declaration = (type.getNonNullableType().aliasSymbol ?? type.getNonNullableType().symbol)
    ?.declarations?.[0];
  return declaration &&
    ts.isInterfaceDeclaration(declaration) &&
    !declaration.getSourceFile().fileName.includes('node_modules')
    ? declaration
    : undefined;
};

const typeText = (checker: ts.TypeChecker, type: ts.Type, node: ts.Node) =>
  checker.typeToString(
    type.getNonNullableType(),
    node,
    // InTypeAlias: an alias of a union (`WebhookFront`) is shown as the values it allows.
    ts.TypeFormatFlags.NoTruncation |
      ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
      ts.TypeFormatFlags.InTypeAlias,
  );

/** The element of `readonly T[]` or `T[]` as written. */
const elementNode = (node: ts.TypeNode | undefined): ts.TypeNode | undefined => {
  const list = node && ts.isTypeOperatorNode(node) ? node.type : node;
  return list && ts.isArrayTypeNode(list) ? list.elementType : undefined;
};

/** A type's shape; `written` is the type as the declaration spells it, which keeps alias names. */
const shapeOf = (
  checker: ts.TypeChecker,
  type: ts.Type,
  node: ts.Node,
  written: ts.TypeNode | undefined,
): PropShape => {
  const own = type.getNonNullableType();
  if (own.flags & ts.TypeFlags.StringLike && !own.isStringLiteral()) return { kind: 'string' };
  if (own.flags & ts.TypeFlags.NumberLike && !(own.flags & ts.TypeFlags.EnumLike))
    return { kind: 'number' };
  if (own.flags & ts.TypeFlags.BooleanLike) return { kind: 'boolean' };
  const name = (own.aliasSymbol ?? own.symbol)?.name;
  if (name === 'Duration' || name === 'RetentionDays') return { kind: name };
  const members = own.isUnion() ? own.types : [own];
  if (members.every((member) => member.isStringLiteral())) {
    const alias =
      written && ts.isTypeReferenceNode(written) ? written.typeName.getText() : undefined;
    return {
      kind: 'oneOf',
      values: members.map((member) => (member as ts.StringLiteralType).value),
      ...(alias ? { alias } : {}),
    };
  }
  if (checker.isArrayType(own)) {
    const [element] = checker.getTypeArguments(own as ts.TypeReference);
    if (element) return { kind: 'list', of: shapeOf(checker, element, node, elementNode(written)) };
  }
  const nested = ownInterface(own);
  if (nested) return { kind: 'props', name: nested.name.text };
  return { kind: 'other', text: typeText(checker, own, node) };
};

/** Every props section, `MsgBridgeProps` first, then each nested interface where it is first used. */
export const propsSections = (): PropsSection[] => {
  const program = ts.createProgram([PROPS_FILE], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(PROPS_FILE);
  const root = source?.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === 'MsgBridgeProps',
  );
  if (!root) throw new Error('lib/msgbridge-props.ts declares no MsgBridgeProps');

  const sections: PropsSection[] = [];
  const queue: Array<{ path: string; declaration: ts.InterfaceDeclaration }> = [
    { path: '', declaration: root },
  ];
  const seen = new Set<ts.InterfaceDeclaration>([root]);
  while (queue.length > 0) {
    const { path, declaration } = queue.shift() as (typeof queue)[number];
    const type = checker.getTypeAtLocation(declaration);
    const props = checker.getPropertiesOfType(type).map((symbol): PropEntry => {
      const [member] = symbol.declarations ?? [];
      if (!member) throw new Error(`${declaration.name.text}.${symbol.name} has no declaration`);
      const propType = checker.getTypeOfSymbolAtLocation(symbol, member);
      const nested = ownInterface(propType);
      const propPath = path === '' ? symbol.name : `${path}.${symbol.name}`;
      if (nested && !seen.has(nested)) {
        seen.add(nested);
        queue.push({ path: propPath, declaration: nested });
      }
      const tags = ts.getJSDocTags(member);
      const defaultTag = tags.find((tag) => tag.tagName.text === 'default');
      return {
        path: propPath,
        type: typeText(checker, propType, member),
        required: (symbol.flags & ts.SymbolFlags.Optional) === 0,
        defaultValue:
          defaultTag === undefined
            ? undefined
            : oneLine(ts.getTextOfJSDocComment(defaultTag.comment) ?? ''),
        description: oneLine(ts.displayPartsToString(symbol.getDocumentationComment(checker))),
        shape: shapeOf(
          checker,
          propType,
          member,
          ts.isPropertySignature(member) ? member.type : undefined,
        ),
      };
    });
    sections.push({
      path,
      name: declaration.name.text,
      file: declaration.getSourceFile().fileName.slice(ROOT.length + 1),
      description: oneLine(
        ts.displayPartsToString(
          checker.getSymbolAtLocation(declaration.name)?.getDocumentationComment(checker) ?? [],
        ),
      ),
      props,
    });
  }
  return sections;
};

const cell = (text: string) => text.replace(/\|/g, '\\|');
const code = (text: string) => `\`${text.replace(/\|/g, '\\|')}\``;

/** What the reference says of a prop's default. */
const defaultText = (prop: PropEntry) => {
  if (prop.required) return 'required';
  const value = prop.defaultValue ?? '';
  // `@default - text` is a description of the default; anything else is the value itself.
  return value.startsWith('- ') ? cell(value.slice(2)) : code(value);
};

/** docs/props.md, as `npm run docs:props` writes it. */
export const renderPropsReference = (sections: readonly PropsSection[] = propsSections()) =>
  [
    '# The props of `MsgBridge`',
    '',
    '<!-- Generated by `npm run docs:props` from the declarations in lib/; a unit test fails when',
    '     this page and the code differ. Edit the doc comments, then run the script. -->',
    '',
    'Every prop of the construct (`new MsgBridge(scope, id, props)`, and `MsgbridgeStack`, which',
    'also takes the CDK’s `StackProps`), with its type and its default. A prop that names another',
    'props interface has its own table below, its props by their path. Every problem with the',
    'props is reported at once in one `InvalidPropsError`, a key that is no prop among them; the',
    'repository’s stack reads the same settings from `cdk.json` (docs/deploy.md, “Configuration”).',
    '',
    ...sections.flatMap((section) => [
      section.path === ''
        ? `## \`${section.name}\``
        : `## \`${section.path}\`: \`${section.name}\``,
      '',
      ...(section.description ? [section.description, ''] : []),
      `Declared in \`${section.file}\`.`,
      '',
      '| Prop | Type | Default | What it does |',
      '| --- | --- | --- | --- |',
      ...section.props.map(
        (prop) =>
          `| ${code(prop.path)} | ${code(prop.type)} | ${defaultText(prop)} | ${cell(prop.description)} |`,
      ),
      '',
    ]),
  ].join('\n');
