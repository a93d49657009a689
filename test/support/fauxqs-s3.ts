/** fauxqs's S3 in a child process with the attachment bucket created, for tests that store objects. */
import { type ChildProcess, spawn } from 'node:child_process';
import { S3Client } from '@aws-sdk/client-s3';
import { localClientConfig } from '../../local/dynamodb-local.ts';

export const BUCKET = 'msgbridge-attachments';

export interface Fauxqs {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** fauxqs's S3 in a child process, with the bucket created; it exits when our stdin closes. */
export const startFauxqsProcess = async (): Promise<Fauxqs> => {
  const script = [
    "import { startFauxqs } from 'fauxqs';",
    'const server = await startFauxqs({ port: 0, logger: false });',
    `server.createBucket(${JSON.stringify(BUCKET)});`,
    "process.stdout.write(JSON.stringify({ port: server.port }) + '\\n');",
    "process.stdin.on('end', () => server.stop().finally(() => process.exit(0)));",
    'process.stdin.resume();',
  ].join('\n');
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`fauxqs exited with ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.stdin?.end();
      }),
  };
};

/** An S3 client for the fauxqs at `endpoint` (path-style: fauxqs serves no bucket subdomains). */
export const fauxqsS3Client = (endpoint: string): S3Client =>
  new S3Client({ ...localClientConfig(endpoint), forcePathStyle: true });
