/**
 * What the package's own files say, from the repository's: its manifest (`dist/package.json`)
 * and its README (docs/package/README.md with every link made absolute), so that both read
 * right from the registry. scripts/build-package.ts writes them; the package test checks them.
 */

/** The fields of the repository's package.json that the package's manifest takes. */
export interface RepositoryManifest {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly keywords?: readonly string[];
  readonly license: string;
  readonly engines: Readonly<Record<string, string>>;
  readonly repository?: string | { readonly type?: string; readonly url: string };
  readonly homepage?: string;
  readonly bugs?: string | { readonly url?: string };
  readonly dependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

/**
 * The user documentation the package carries (its README links to it), by its path in the
 * repository and in the package alike.
 */
export const PACKAGE_DOCS = [
  'docs/deploy.md',
  'docs/props.md',
  'docs/events.md',
  'docs/events',
  'docs/sending.md',
  'docs/schemas',
  'docs/operations.md',
  'docs/reliability.md',
  'docs/console.md',
  'docs/console',
] as const;

const entry = (path: string) => ({ types: `./${path}.d.ts`, default: `./${path}.js` });

/**
 * The package's manifest: its name, version and metadata, its three entries, the command, and
 * the dependencies of what it runs. Nothing it ships imports anything else (the package test
 * checks every import of every file); scripts and development dependencies stay behind.
 */
export const packageManifest = (repository: RepositoryManifest) => ({
  name: repository.name,
  version: repository.version,
  description: repository.description,
  keywords: repository.keywords ?? [],
  license: repository.license,
  ...(repository.repository === undefined ? {} : { repository: repository.repository }),
  ...(repository.homepage === undefined ? {} : { homepage: repository.homepage }),
  ...(repository.bugs === undefined ? {} : { bugs: repository.bugs }),
  type: 'module',
  engines: repository.engines,
  main: './lib/index.js',
  types: './lib/index.d.ts',
  // TypeScript's classic `node10` resolution (`module: commonjs`) reads no `exports`.
  typesVersions: {
    '*': { send: ['./producer/send.d.ts'], events: ['./events/index.d.ts'] },
  },
  exports: {
    '.': entry('lib/index'),
    './send': entry('producer/send'),
    './events': entry('events/index'),
    './package.json': './package.json',
  },
  bin: { msgbridge: './cli/msgbridge.mjs' },
  dependencies: repository.dependencies,
  peerDependencies: repository.peerDependencies,
  ...(repository.peerDependenciesMeta === undefined
    ? {}
    : { peerDependenciesMeta: repository.peerDependenciesMeta }),
});

/**
 * Where a relative link of the package README points from the registry: the repository's files
 * at the version's tag when the manifest names a GitHub repository, the package's own files on
 * jsDelivr (which serves every published npm package) otherwise.
 */
export const packageLinkBase = (
  manifest: Pick<RepositoryManifest, 'name' | 'version' | 'repository'>,
): string => {
  const url =
    typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  const github = url ? /github\.com[/:]([^/]+\/[^/.]+)/.exec(url)?.[1] : undefined;
  return github
    ? `https://github.com/${github}/blob/v${manifest.version}/`
    : `https://cdn.jsdelivr.net/npm/${manifest.name}@${manifest.version}/`;
};

/** A Markdown link's target: `](target)` of an inline link or image. */
const LINK = /(\]\()([^)\s]+)(\))/g;

/** The package README: `source` with each relative link made absolute against the link base. */
export const packageReadme = (
  source: string,
  manifest: Pick<RepositoryManifest, 'name' | 'version' | 'repository'>,
): string => {
  const base = packageLinkBase(manifest);
  return source.replace(LINK, (_, open: string, target: string, close: string) =>
    /^(?:[a-z][a-z+.-]*:|#)/i.test(target)
      ? `${open}${target}${close}`
      : `${open}${base}${target}${close}`,
  );
};

/** The targets of every link in `markdown`. */
export const linkTargets = (markdown: string): string[] =>
  [...markdown.matchAll(LINK)].map((match) => match[2] ?? '');
