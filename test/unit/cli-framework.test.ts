import { readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { type CommandSpec, runCommand } from '../../cli/framework.ts';
import { main } from '../../cli/main.ts';
import { createProgress, formatTable } from '../../cli/output.ts';
import { GatewayRejectedError, GatewayTransportError } from '../../gateway/errors.ts';
import { RcsChatbotIdUnusableError } from '../../gateway/management/rcs-client.ts';
import { describeError, OperationError } from '../../ops/errors.ts';
import { REQUIRED_OUTPUTS, resolveTarget, type Target } from '../../ops/target.ts';
import { captureIo } from '../support/cli-gateway.ts';

describe('formatTable', () => {
  it('aligns columns by display width, right-aligns numbers and trims trailing spaces', () => {
    // Act
    const lines = formatTable(
      [
        { name: '한빛', count: 7, note: undefined },
        { name: 'abcdef', count: 1234, note: 'x' },
      ],
      [
        { header: 'NAME', key: 'name' },
        { header: 'COUNT', key: 'count', right: true },
        { header: 'NOTE', key: 'note' },
      ],
    );

    // Assess
    expect(lines).toEqual(['NAME    COUNT  NOTE', '한빛        7', 'abcdef   1234  x']);
  });

  it('renders objects as JSON and computed columns', () => {
    const lines = formatTable(
      [{ a: { b: 1 } }],
      [
        { header: 'A', key: 'a' },
        { header: 'B', value: (row) => Object.keys(row.a).length },
      ],
    );
    expect(lines).toEqual(['A        B', '{"b":1}  1']);
  });
});

describe('progress', () => {
  it('redraws one line in place on a terminal and ends it with a newline', () => {
    // Prepare
    const { io, raw, err } = captureIo({ tty: true });
    const progress = createProgress(io, 'redriving', 500);

    // Act
    progress.update(120);
    progress.update(500);
    progress.finish();

    // Assess
    expect(raw).toEqual(['\r\x1b[Kredriving 120/500…', '\r\x1b[Kredriving 500/500…', '\n']);
    expect(err).toEqual([]);
  });

  it('prints one line per tenth of the total off a terminal', () => {
    // Prepare
    const { io, raw, err } = captureIo({ tty: false });
    const progress = createProgress(io, 'sending', 100);

    // Act
    for (let done = 1; done <= 100; done += 1) progress.update(done);
    progress.finish();

    // Assess
    expect(raw).toEqual([]);
    expect(err).toHaveLength(10);
    expect(err[0]).toBe('sending 10/100…');
    expect(err[9]).toBe('sending 100/100…');
  });
});

describe('argument parsing', () => {
  const echo: CommandSpec = {
    summary: 'echo',
    usage: 'msgbridge echo --count N NAME',
    options: { count: { type: 'string' } },
    positionals: { min: 1, max: 1, name: 'NAME' },
    run: async (context) => {
      const count = context.integer('count', 1, { min: 1, max: 3 });
      context.out.emit({ name: context.positionals[0], count }, () =>
        context.out.line(`${context.positionals[0]} x${count}`),
      );
      return 0;
    },
  };
  const run = (args: string[]) => {
    const captured = captureIo();
    const never = async (): Promise<Target> => {
      throw new Error('no target in this test');
    };
    return runCommand('echo', echo, args, captured.io, {}, never).then((code) => ({
      code,
      ...captured,
    }));
  };

  it('parses options and prints JSON with --json', async () => {
    const plain = await run(['kim', '--count', '2']);
    const json = await run(['kim', '--count=3', '--json']);
    expect(plain).toMatchObject({ code: 0, out: ['kim x2'] });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out.join('\n'))).toEqual({ name: 'kim', count: 3 });
  });

  it('answers usage errors with exit 2 and the usage, whatever the cause', async () => {
    const cases = [
      [['kim', '--bogus'], 'unknown option --bogus\n'],
      [['kim', '--cuont', '2'], 'unknown option --cuont; did you mean --count?'],
      [['kim', '--count'], '--count needs a value'],
      [['kim', '--json=yes'], '--json takes no value'],
      [[], 'needs a NAME'],
      [['kim', 'lee'], 'unexpected argument "lee"'],
      [['kim', '--count', '9'], '--count must be a whole number from 1 to 3'],
      [['kim', '--count', 'two'], '--count must be a whole number'],
    ] as const;
    for (const [args, message] of cases) {
      const result = await run([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.err.join('\n')).toContain(`msgbridge echo: ${message}`);
      expect(result.err.join('\n')).toContain('msgbridge echo --count N NAME');
      expect(result.err.join('\n')).toContain('--stack NAME');
    }
  });

  it('answers an unknown subcommand of a group with exit 2 and the group usage', async () => {
    const { io, err } = captureIo();
    expect(await main(['urls', 'frobnicate'], io)).toBe(2);
    expect(err.join('\n')).toContain('msgbridge urls: unknown command "frobnicate"');
    expect(err.join('\n')).toContain('Usage: msgbridge urls COMMAND');
  });

  it('suggests the command meant by a misspelt one, and none for a name far from every command', async () => {
    const cases = [
      [['sned'], 'msgbridge: unknown command "sned"; did you mean "send"?'],
      [['templats', 'list'], 'msgbridge: unknown command "templats"; did you mean "templates"?'],
      [['urls', 'lsit'], 'msgbridge urls: unknown command "lsit"; did you mean "list"?'],
      [['doc'], 'msgbridge: unknown command "doc"; did you mean "doctor"?'],
    ] as const;
    for (const [args, message] of cases) {
      const { io, err } = captureIo();
      expect(await main([...args], io), args.join(' ')).toBe(2);
      expect(err.join('\n')).toContain(message);
    }
    const { io, err } = captureIo();
    expect(await main(['deploy'], io)).toBe(2);
    expect(err.join('\n')).toContain('msgbridge: unknown command "deploy"\n');
    expect(err.join('\n')).not.toContain('did you mean');
  });

  it('prints the package version for --version and -V', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-V']) {
      const { io, out } = captureIo();
      expect(await main([flag], io)).toBe(0);
      expect(out).toEqual([`msgbridge ${version}`]);
    }
  });

  it('prints a command usage for --help with exit 0', async () => {
    const { io, out } = captureIo();
    expect(await main(['urls', 'list', '--help'], io)).toBe(0);
    expect(out.join('\n')).toContain('msgbridge urls list [--page N]');
    expect(out.join('\n')).toContain('--json');
  });
});

describe('error output', () => {
  it('prints a gateway refusal with its code and message and exits 1', async () => {
    // Prepare
    const { io, err } = captureIo();
    const failing: CommandSpec = {
      summary: 'fails',
      usage: 'msgbridge urls delete URL_ID',
      target: false,
      run: async () => {
        throw new GatewayRejectedError({
          code: '29045',
          message: 'no such url',
          endpoint: 'POST /msg/v1/deleteClickUrl',
        });
      },
    };

    // Act
    const code = await runCommand('urls delete', failing, [], io, {}, async () => {
      throw new Error('unused');
    });

    // Assess
    expect(code).toBe(1);
    expect(err).toEqual(['msgbridge urls delete: the gateway refused: 29045 no such url']);
  });

  it('explains missing AWS credentials and a missing region with the fix, not the SDK’s text', () => {
    // As the SDK's default provider chain and its region check throw them.
    const noCredentials = Object.assign(
      new Error('Could not load credentials from any providers'),
      {
        name: 'CredentialsProviderError',
      },
    );
    expect(describeError(noCredentials)).toEqual([
      'no AWS credentials were found for the stack',
      '  (set a profile with AWS_PROFILE=NAME, after `aws configure` or `aws sso login --profile NAME`,',
      "  or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; and the stack's region with --region R or AWS_REGION)",
    ]);
    expect(describeError(new Error('Region is missing'))).toEqual([
      'no AWS region was given for the stack',
      '  (pass --region R, or set AWS_REGION or a region in the AWS profile)',
    ]);
  });

  it('prints the nested codes of a nested gateway error, and every line of a OperationError', () => {
    const outer = new GatewayRejectedError({ code: '21399', message: 'unusable', endpoint: 'x' });
    expect(
      describeError(new RcsChatbotIdUnusableError('bot', '4001', 'bad format', outer)),
    ).toEqual([
      'the gateway refused: 21399 unusable (upstream 4001: bad format)',
      '  nested: 4001 bad format',
    ]);
    expect(describeError(new OperationError('3 problems', ['a', 'b']))).toEqual([
      '3 problems',
      '  a',
      '  b',
    ]);
    expect(
      describeError(
        new GatewayTransportError('timeout', {
          code: 'TIMEOUT',
          message: 'after 10000 ms',
          endpoint: 'x',
        }),
      )[0],
    ).toBe('the gateway did not answer (timeout): after 10000 ms');
  });
});

describe('resolveTarget', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  afterEach(() => cloudFormation.reset());

  it('says how to start a local run, or reach one elsewhere, when DIR/bridge.json is missing', async () => {
    const { io } = captureIo();
    await expect(resolveTarget({}, { readFile: io.readFile })).rejects.toThrow(
      'the local run is not running; start it with npm start (.local/bridge.json: no such file); for a run on another data directory pass --local DIR or set LOCAL_DATA_DIR=DIR as for npm start; for a deployed stack, --stack NAME',
    );
    await expect(resolveTarget({ local: 'runs/a' }, { readFile: io.readFile })).rejects.toThrow(
      'the local run is not running; start it with npm start (runs/a/bridge.json: no such file)',
    );
    await expect(
      resolveTarget({}, { readFile: io.readFile, localDataDir: 'runs/b' }),
    ).rejects.toThrow(
      'the local run is not running; start it with npm start (runs/b/bridge.json, from LOCAL_DATA_DIR: no such file); for a run on another data directory pass --local DIR or set LOCAL_DATA_DIR=DIR',
    );
  });

  it('looks where LOCAL_DATA_DIR points unless --local DIR says otherwise; a bare --local too', async () => {
    // Prepare: main reads LOCAL_DATA_DIR from the environment it is given.
    const captured = captureIo();
    const env = { LOCAL_DATA_DIR: 'runs/b' };

    // Act
    const codes = [
      await main(['trace', 'k-1'], captured.io, { env }),
      await main(['trace', 'k-1', '--local'], captured.io, { env }),
      await main(['trace', 'k-1', '--local', 'runs/c'], captured.io, { env }),
      await main(['trace', 'k-1'], captured.io, { env: {} }),
    ];

    // Assess
    expect(codes).toEqual([1, 1, 1, 1]);
    expect(captured.err).toEqual([
      expect.stringContaining('(runs/b/bridge.json, from LOCAL_DATA_DIR: no such file)'),
      expect.stringContaining('(runs/b/bridge.json, from LOCAL_DATA_DIR: no such file)'),
      expect.stringContaining('(runs/c/bridge.json: no such file)'),
      expect.stringContaining('(.local/bridge.json: no such file)'),
    ]);
  });

  it('names what is missing from an invalid bridge.json', async () => {
    const { io } = captureIo({
      files: { 'old/bridge.json': JSON.stringify({ simulator: 'http://127.0.0.1:1' }) },
    });
    const failure = resolveTarget({ local: 'old' }, { readFile: io.readFile });
    await expect(failure).rejects.toThrow(/old\/bridge.json does not describe a local run/);
    await expect(failure).rejects.toThrow(/gatewayHosts/);
    const { io: broken } = captureIo({ files: { 'bad/bridge.json': '{' } });
    await expect(resolveTarget({ local: 'bad' }, { readFile: broken.readFile })).rejects.toThrow(
      /bad\/bridge.json is not JSON/,
    );
  });

  it('refuses --local with --stack, and --region without --stack', async () => {
    const { io } = captureIo();
    await expect(
      resolveTarget({ local: 'x', stack: 's' }, { readFile: io.readFile }),
    ).rejects.toThrow('either --local or --stack');
    await expect(
      resolveTarget({ region: 'ap-northeast-2' }, { readFile: io.readFile }),
    ).rejects.toThrow('--region goes with --stack');
  });

  const outputs = (names: readonly string[]) =>
    names.map((name) => ({
      OutputKey: name,
      OutputValue:
        name === 'GatewayHosts'
          ? JSON.stringify({
              api: 'https://api.example',
              send: 'https://send.example',
              mnt: 'https://mnt.example',
            })
          : name.endsWith('Url')
            ? `https://sqs.ap-northeast-2.amazonaws.com/1/${name}`
            : `value-of-${name}`,
    }));

  it('names every stack output that is missing', async () => {
    // Prepare
    cloudFormation.on(DescribeStacksCommand, { StackName: 'prod' }).resolves({
      Stacks: [
        {
          StackName: 'prod',
          CreationTime: new Date(),
          StackStatus: 'UPDATE_COMPLETE',
          Outputs: outputs(
            REQUIRED_OUTPUTS.filter((n) => n !== 'EventArchiveArn' && n !== 'GatewayHosts'),
          ),
        },
      ],
    });

    // Act
    const failure = resolveTarget(
      { stack: 'prod' },
      {
        readFile: async () => '',
        aws: { cloudFormation: new CloudFormationClient({ region: 'ap-northeast-2' }) },
      },
    );

    // Assess
    await expect(failure).rejects.toThrow(
      'stack prod lacks the outputs GatewayHosts, EventArchiveArn; deploy a msgbridge version that has them',
    );
  });

  it('builds a stack target from the outputs', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'prod',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: outputs(REQUIRED_OUTPUTS),
        },
      ],
    });
    const target = await resolveTarget(
      { stack: 'prod', region: 'ap-northeast-2' },
      {
        readFile: async () => '',
        aws: { cloudFormation: new CloudFormationClient({ region: 'ap-northeast-2' }) },
      },
    );
    expect(target.kind).toBe('stack');
    expect(target.describe()).toBe('stack prod in ap-northeast-2');
    expect(target.queues.send).toMatch(/SendQueueUrl$/);
    expect(target.tables).toEqual({
      events: 'value-of-EventTableName',
      state: 'value-of-StateTableName',
    });
    expect(target.events).toMatchObject({
      kind: 'stack',
      busArn: 'value-of-EventBusArn',
      archiveArn: 'value-of-EventArchiveArn',
    });
    expect(target.gateway().messaging).toBeDefined();
  });
});
