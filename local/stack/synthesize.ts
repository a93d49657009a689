/**
 * The stack as `cdk synth` builds it, for the local run, the tests and the benchmarks to run on:
 * this repository's `MsgbridgeStack`, with the feature flags and `msgbridge` settings of
 * `cdk.json` and the settings a caller overlays, synthesized in-process without bundling (the
 * local run calls the functions' code directly; only the template is read).
 *
 * A template is kept under `.local/synth/<key>/`, the key a hash of the settings and of every
 * source the synthesis reads (`lib/`, `functions/`, `cdk.json`, the aws-cdk-lib version), so a
 * test run synthesizes each configuration once and every tier after the first reuses it; any edit
 * to those sources synthesizes afresh.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnTemplate } from '../../aws-semantics/cloudformation-template.ts';
import { appSettingsFromContext, CONTEXT_KEY } from '../../lib/context-props.ts';
import { MsgbridgeStack, type MsgbridgeStackProps } from '../../lib/msgbridge-stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Where synthesized templates are kept; `MSGBRIDGE_SYNTH_CACHE` chooses another directory. */
export const synthCacheDirectory = (): string =>
  process.env.MSGBRIDGE_SYNTH_CACHE ?? join(ROOT, '.local', 'synth');

/** What `cdk.json` holds: the feature flags and the `msgbridge` settings. */
export const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

export interface SynthesizeOptions {
  /** The stack's name. @default the `stackName` of the context, else `msgbridge` */
  readonly stackName?: string;
  /**
   * Settings laid over the `msgbridge` settings of `cdk.json` (a key given here replaces that key
   * there, one level deep: `sending` replaces `sending`).
   */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Props laid over the props the settings give, for what the context cannot express. */
  readonly props?: Partial<MsgbridgeStackProps>;
}

export interface SynthesizedTemplate {
  readonly stackName: string;
  readonly template: CfnTemplate;
  /** The file the template was read from. */
  readonly file: string;
  /** Whether it came from the cache. */
  readonly cached: boolean;
}

/** The template of the stack with these settings: from the cache, or synthesized now. */
export const synthesizeStack = (options: SynthesizeOptions = {}): SynthesizedTemplate => {
  const context = cdkJsonContext();
  const base = (context[CONTEXT_KEY] ?? {}) as Record<string, unknown>;
  const settings = { ...base, ...options.settings };
  const stackName = options.stackName ?? 'msgbridge';
  const key = createHash('sha256')
    .update(JSON.stringify({ stackName, settings, props: options.props ?? {} }))
    .update(sourceFingerprint())
    .digest('hex')
    .slice(0, 24);
  const directory = join(synthCacheDirectory(), key);
  const file = join(directory, `${stackName}.template.json`);
  if (existsSync(file)) return { stackName, template: readTemplate(file), file, cached: true };

  const outdir = join(tmpdir(), `msgbridge-synth-${process.pid}-${key}`);
  rmSync(outdir, { recursive: true, force: true });
  const app = new App({
    outdir,
    context: {
      ...context,
      [CONTEXT_KEY]: settings,
      // The template only: the local run runs the functions' sources, not bundles.
      'aws:cdk:bundling-stacks': [],
      // Each resource names its construct path, by which a function's name is found.
      'aws:cdk:enable-path-metadata': true,
      // No validation report on the console: the local run has its own output.
      '@aws-cdk/core:annotationsInValidationReport': false,
    },
  });
  const { props } = appSettingsFromContext((name) => app.node.tryGetContext(name));
  new MsgbridgeStack(app, stackName, { ...props, ...options.props });
  app.synth({ validateOnSynthesis: false });
  // Written under a name of its own, then renamed into place: concurrent callers never read a
  // half-written template, and the last rename wins with the same content.
  mkdirSync(directory, { recursive: true });
  renameSync(join(outdir, `${stackName}.template.json`), file);
  rmSync(outdir, { recursive: true, force: true });
  return { stackName, template: readTemplate(file), file, cached: false };
};

const readTemplate = (file: string): CfnTemplate =>
  JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate;

let fingerprint: string | undefined;

/** A hash of every source a synthesis reads, computed once per process. */
const sourceFingerprint = (): string => {
  if (fingerprint !== undefined) return fingerprint;
  const hash = createHash('sha256');
  const files = [
    ...sourceFiles(join(ROOT, 'lib')),
    ...sourceFiles(join(ROOT, 'functions')),
    join(ROOT, 'cdk.json'),
    join(ROOT, 'node_modules', 'aws-cdk-lib', 'package.json'),
  ];
  for (const file of files.sort()) {
    hash.update(relative(ROOT, file));
    hash.update(existsSync(file) ? readFileSync(file) : '');
  }
  fingerprint = hash.digest('hex');
  return fingerprint;
};

const sourceFiles = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|json)$/.test(entry.name) ? [path] : [];
  });
