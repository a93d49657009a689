/**
 * The event-pattern matcher against AWS's own examples: each case is a pattern and an event from
 * the Lambda developer guide ("Control which events Lambda sends to your function", "Using event
 * filtering with a DynamoDB event source"), the EventBridge user guide ("Comparison operators for
 * use in event patterns") or the Event Ruler README (the engine EventBridge runs), with the match
 * or no-match the documentation states or implies.
 */
import { describe, expect, it } from 'vitest';
import {
  compileEventPattern,
  InvalidEventPatternError,
  matchesEventPattern,
  parseJsonKeepingNumbers,
} from '../../aws-semantics/event-pattern.ts';

interface Case {
  readonly name: string;
  readonly pattern: unknown;
  readonly matches: readonly unknown[];
  readonly misses: readonly unknown[];
}

/** Patterns and events as JSON text, so numbers keep the text they are written with. */
const check = ({ pattern, matches, misses }: Case) => {
  const text = typeof pattern === 'string' ? pattern : JSON.stringify(pattern);
  for (const event of matches)
    expect(
      matchesEventPattern(text, typeof event === 'string' ? event : JSON.stringify(event)),
      `${text} should match ${typeof event === 'string' ? event : JSON.stringify(event)}`,
    ).toBe(true);
  for (const event of misses)
    expect(
      matchesEventPattern(text, typeof event === 'string' ? event : JSON.stringify(event)),
      `${text} should not match ${typeof event === 'string' ? event : JSON.stringify(event)}`,
    ).toBe(false);
};

describe('the Lambda developer guide: comparison operators', () => {
  const cases: Case[] = [
    {
      name: 'Null: UserID is null',
      pattern: { UserID: [null] },
      matches: [{ UserID: null }],
      misses: [{ UserID: 'null' }, { UserID: '' }, {}],
    },
    {
      name: 'Empty: LastName is empty',
      pattern: { LastName: [''] },
      matches: [{ LastName: '' }],
      misses: [{ LastName: 'Doe' }, { LastName: null }, {}],
    },
    {
      name: 'Equals: Name is "Alice"',
      pattern: { Name: ['Alice'] },
      matches: [{ Name: 'Alice' }],
      misses: [{ Name: 'alice' }, { Name: 'Alice ' }, { name: 'Alice' }],
    },
    {
      name: 'Equals (ignore case): Name is "Alice"',
      pattern: { Name: [{ 'equals-ignore-case': 'alice' }] },
      matches: [{ Name: 'Alice' }, { Name: 'ALICE' }, { Name: 'alice' }],
      misses: [{ Name: 'Alicia' }, {}],
    },
    {
      name: 'And: Location is "New York" and Day is "Monday"',
      pattern: { Location: ['New York'], Day: ['Monday'] },
      matches: [{ Location: 'New York', Day: 'Monday', Other: 1 }],
      misses: [{ Location: 'New York', Day: 'Tuesday' }, { Location: 'New York' }],
    },
    {
      name: 'Or: PaymentType is "Credit" or "Debit"',
      pattern: { PaymentType: ['Credit', 'Debit'] },
      matches: [{ PaymentType: 'Credit' }, { PaymentType: 'Debit' }],
      misses: [{ PaymentType: 'Cash' }],
    },
    {
      name: 'Or (multiple fields): Location is "New York", or Day is "Monday"',
      pattern: { $or: [{ Location: ['New York'] }, { Day: ['Monday'] }] },
      matches: [{ Location: 'New York' }, { Day: 'Monday' }, { Location: 'Seoul', Day: 'Monday' }],
      misses: [{ Location: 'Seoul', Day: 'Tuesday' }],
    },
    {
      name: 'Not: Weather is anything but "Raining"',
      pattern: { Weather: [{ 'anything-but': ['Raining'] }] },
      matches: [{ Weather: 'Sunny' }, { Weather: 'Cloudy' }],
      misses: [{ Weather: 'Raining' }, {}],
    },
    {
      name: 'Numeric (equals): Price is 100',
      pattern: '{ "Price": [ { "numeric": [ "=", 100 ] } ] }',
      matches: ['{ "Price": 100 }', '{ "Price": 100.0 }', '{ "Price": 1e2 }'],
      misses: ['{ "Price": "100" }', '{ "Price": 100.5 }'],
    },
    {
      name: 'Numeric (range): Price is more than 10, and less than or equal to 20',
      pattern: { Price: [{ numeric: ['>', 10, '<=', 20] }] },
      matches: [{ Price: 20 }, { Price: 10.5 }],
      misses: [{ Price: 10 }, { Price: 20.1 }, { Price: '15' }],
    },
    {
      name: 'Exists: ProductName exists',
      pattern: { ProductName: [{ exists: true }] },
      matches: [{ ProductName: 'Cup' }, { ProductName: '' }, { ProductName: null }],
      misses: [{}, { ProductName: { en: 'Cup' } }],
    },
    {
      name: 'Does not exist: ProductName does not exist',
      pattern: { ProductName: [{ exists: false }] },
      matches: [{}, { Other: 'x' }],
      misses: [{ ProductName: 'Cup' }],
    },
    {
      name: 'Begins with: Region is in the US',
      pattern: { Region: [{ prefix: 'us-' }] },
      matches: [{ Region: 'us-east-1' }],
      misses: [{ Region: 'ap-northeast-2' }, { Region: 'US-east-1' }],
    },
    {
      name: 'Ends with: FileName ends with a .png extension',
      pattern: { FileName: [{ suffix: '.png' }] },
      matches: [{ FileName: 'photo.png' }],
      misses: [{ FileName: 'photo.PNG' }, { FileName: 'photo.png.txt' }],
    },
  ];
  for (const testCase of cases) it(testCase.name, () => check(testCase));

  it('compares numbers by their text for equality: 300, 300.0 and 3.0e2 are not equal', () => {
    check({
      name: 'number text',
      pattern: '{ "a": [ 300 ] }',
      matches: ['{ "a": 300 }'],
      misses: ['{ "a": 300.0 }', '{ "a": 3.0e2 }', '{ "a": "300" }'],
    });
  });

  it('the console example { "a" : [ 1, 2 ] }: a is 1 or 2', () => {
    check({
      name: 'console',
      pattern: '{ "a" : [ 1, 2 ] }',
      matches: ['{ "a": 1 }', '{ "a": 2 }'],
      misses: ['{ "a": 3 }', '{ "a": "1" }'],
    });
  });

  it('the filtering example: partitionKey "1" and data.Location "Los Angeles"', () => {
    check({
      name: 'kinesis',
      pattern: { partitionKey: ['1'], data: { Location: ['Los Angeles'] } },
      matches: [{ partitionKey: '1', data: { Location: 'Los Angeles', City: 'x' } }],
      misses: [
        { partitionKey: '2', data: { Location: 'Los Angeles' } },
        { partitionKey: '1', data: { Location: 'Seattle' } },
      ],
    });
  });

  it('the filtering example: Temperature greater than 50 and at most 60 (JSON numbers only)', () => {
    const pattern = { data: { Temperature: [{ numeric: ['>', 50, '<=', 60] }] } };
    check({
      name: 'temperature',
      pattern,
      matches: [{ data: { Temperature: 55 } }, { data: { Temperature: 60 } }],
      // The guide's own Kinesis record holds "Temperature": "46", a string: never numeric.
      misses: [{ data: { Temperature: 50 } }, { data: { Temperature: '55' } }],
    });
  });
});

describe('the Lambda developer guide: DynamoDB records', () => {
  const record = {
    eventID: '1',
    eventVersion: '1.0',
    dynamodb: {
      ApproximateCreationDateTime: '1678831218.0',
      Keys: { CustomerName: { S: 'AnyCompany Industries' } },
      NewImage: {
        AccountManager: { S: 'Pat Candella' },
        PaymentTerms: { S: '60 days' },
        CustomerName: { S: 'AnyCompany Industries' },
      },
      SequenceNumber: '111',
      SizeBytes: 26,
      StreamViewType: 'NEW_IMAGE',
    },
  };

  it('filters with table keys: CustomerName is "AnyCompany Industries"', () => {
    check({
      name: 'keys',
      pattern: { dynamodb: { Keys: { CustomerName: { S: ['AnyCompany Industries'] } } } },
      matches: [record],
      misses: [{ ...record, dynamodb: { ...record.dynamodb, Keys: { CustomerName: { S: 'X' } } } }],
    });
  });

  it('filters with table attributes and Boolean expressions (AND of attributes)', () => {
    check({
      name: 'attributes',
      pattern: {
        dynamodb: {
          NewImage: { AccountManager: { S: ['Pat Candella'] }, PaymentTerms: { S: ['60 days'] } },
        },
      },
      matches: [record],
      misses: [
        {
          ...record,
          dynamodb: {
            ...record.dynamodb,
            NewImage: { ...record.dynamodb.NewImage, PaymentTerms: { S: '30 days' } },
          },
        },
      ],
    });
  });

  it('uses the exists operator on an attribute of the new image', () => {
    check({
      name: 'exists',
      pattern: { dynamodb: { NewImage: { AccountManager: { S: [{ exists: false }] } } } },
      matches: [{ dynamodb: { NewImage: { CustomerName: { S: 'A' } } } }],
      misses: [record],
    });
  });

  it('multi-level filtering on a number key: N is the string "101", never a JSON number', () => {
    const stream = { dynamodb: { Keys: { Id: { N: '101' } }, NewImage: { Id: { N: '101' } } } };
    check({
      name: 'multi-level',
      pattern: { dynamodb: { Keys: { Id: { N: ['101'] } } } },
      matches: [stream],
      misses: [{ dynamodb: { Keys: { Id: { N: '102' } } } }],
    });
    check({
      name: 'numeric on N',
      pattern: { dynamodb: { Keys: { Id: { N: [{ numeric: ['=', 101] }] } } } },
      matches: [],
      misses: [stream],
    });
  });
});

describe('the EventBridge user guide: comparison operators', () => {
  const cases: Case[] = [
    {
      name: 'Anything-but: state is any value besides "initializing"',
      pattern: { state: [{ 'anything-but': 'initializing' }] },
      matches: [{ state: 'running' }, { state: 5 }],
      misses: [{ state: 'initializing' }, {}],
    },
    {
      name: 'Anything-but (begins with): Region is not in the US',
      pattern: { Region: [{ 'anything-but': { prefix: 'us-' } }] },
      matches: [{ Region: 'ap-northeast-2' }],
      misses: [{ Region: 'us-west-2' }, {}],
    },
    {
      name: 'Anything-but (ends with): FileName does not end with .png',
      pattern: { FileName: [{ 'anything-but': { suffix: '.png' } }] },
      matches: [{ FileName: 'a.jpg' }],
      misses: [{ FileName: 'a.png' }],
    },
    {
      name: 'Anything-but (ignore case): any value besides "initializing" in any casing',
      pattern: { state: [{ 'anything-but': { 'equals-ignore-case': 'initializing' } }] },
      matches: [{ state: 'running' }],
      misses: [{ state: 'INITIALIZING' }, { state: 'Initializing' }],
    },
    {
      name: 'Anything-but using a wildcard: FilePath does not include /lib/',
      pattern: { FilePath: [{ 'anything-but': { wildcard: '*/lib/*' } }] },
      matches: [{ FilePath: '/usr/bin/node' }],
      misses: [{ FilePath: '/usr/lib/node' }],
    },
    {
      name: 'Anything-but with a list of numbers',
      pattern: { 'x-limit': [{ 'anything-but': [100, 200, 300] }] },
      matches: [{ 'x-limit': 301.8 }],
      misses: [{ 'x-limit': 200 }],
    },
    {
      name: 'Begins with (ignore case): service starts with "eventb" in any case',
      pattern: { service: [{ prefix: { 'equals-ignore-case': 'eventb' } }] },
      matches: [{ service: 'EventBridge' }, { service: 'eventbridge' }],
      misses: [{ service: 'Lambda' }],
    },
    {
      name: 'Ends with (ignore case): service ends with "tbridge" in any case',
      pattern: { service: [{ suffix: { 'equals-ignore-case': 'tBridge' } }] },
      matches: [{ service: 'EVENTBRIDGE' }],
      misses: [{ service: 'bridges' }],
    },
    {
      name: 'IP address: sourceIPAddress within 10.0.0.0/24',
      pattern: { detail: { sourceIPAddress: [{ cidr: '10.0.0.0/24' }] } },
      matches: [{ detail: { sourceIPAddress: '10.0.0.24' } }],
      misses: [{ detail: { sourceIPAddress: '10.0.1.1' } }, { detail: { sourceIPAddress: 1 } }],
    },
    {
      name: 'IP address: IPv6',
      pattern: { ip: [{ cidr: '2001:db8::/32' }] },
      matches: [{ ip: '2001:db8:0:1::5' }],
      misses: [{ ip: '2001:db9::1' }, { ip: '10.0.0.1' }],
    },
    {
      name: 'Wildcard: FileName is a .png file in dir',
      pattern: { FileName: [{ wildcard: 'dir/*.png' }] },
      matches: [{ FileName: 'dir/photo.png' }, { FileName: 'dir/sub/photo.png' }],
      misses: [{ FileName: 'other/photo.png' }, { FileName: 'dir/photo.jpg' }],
    },
  ];
  for (const testCase of cases) it(testCase.name, () => check(testCase));
});

describe('the Event Ruler README', () => {
  const sample = `{
    "version": "0", "id": "ddddd4-aaaa-7777-4444-345dd43cc333",
    "detail-type": "EC2 Instance State-change Notification", "source": "aws.ec2",
    "account": "012345679012", "time": "2017-10-02T16:24:49Z", "region": "us-east-1",
    "resources": [ "arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000" ],
    "detail": { "c-count": 5, "d-count": 3, "x-limit": 301.8, "source-ip": "10.0.0.33",
      "instance-id": "i-000000aaaaaa00000", "state": "running" } }`;

  it('simple matching: a rule on resources, detail-type and detail.state matches the sample', () => {
    check({
      name: 'simple',
      pattern: {
        'detail-type': ['EC2 Instance State-change Notification'],
        resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
        detail: { state: ['initializing', 'running'] },
      },
      matches: [sample],
      misses: [sample.replace('"running"', '"stopped"')],
    });
  });

  it('numeric matching on JSON numbers, including "=" 3.018e2 for 301.8', () => {
    check({
      name: 'numeric',
      pattern:
        '{ "detail": { "c-count": [ { "numeric": [ ">", 0, "<=", 5 ] } ], "d-count": [ { "numeric": [ "<", 10 ] } ], "x-limit": [ { "numeric": [ "=", 3.018e2 ] } ] } }',
      matches: [sample],
      misses: [sample.replace('"c-count": 5', '"c-count": 6')],
    });
  });

  it('the complex example matches the sample event', () => {
    check({
      name: 'complex',
      pattern: {
        time: [{ prefix: '2017-10-02' }],
        detail: {
          state: [{ 'anything-but': 'initializing' }],
          'c-count': [{ numeric: ['>', 0, '<=', 5] }],
          'd-count': [{ numeric: ['<', 10] }],
          'x-limit': [{ 'anything-but': [100, 200, 300] }],
          'source-ip': [{ cidr: '10.0.0.0/8' }],
        },
      },
      matches: [sample],
      misses: [sample.replace('10.0.0.33', '11.0.0.33')],
    });
  });

  it('exists false also matches a field that is not a leaf', () => {
    check({
      name: 'exists non-leaf',
      pattern: { detail: { 'c-count': [{ exists: false }] } },
      matches: [{ detail: { state: 'running' } }, { detail: { 'c-count': { c1: 100 } } }],
      misses: [{ detail: { 'c-count': 5 } }],
    });
  });

  it('arrays: a rule matches when any element does, fields from one element only', () => {
    const event = {
      employees: [
        { firstName: 'John', lastName: 'Doe' },
        { firstName: 'Anna', lastName: 'Smith' },
        { firstName: 'Peter', lastName: 'Jones' },
      ],
    };
    check({
      name: 'array',
      pattern: { employees: { firstName: ['Anna'] } },
      matches: [event, { employees: [[{ firstName: 'Anna' }], [{ firstName: 'Peter' }]] }],
      misses: [],
    });
    check({
      name: 'array consistency',
      pattern: { employees: { firstName: ['Anna'], lastName: ['Jones'] } },
      matches: [],
      misses: [event],
    });
  });

  it('$or: source && (metricName || namespace), and nested alternatives', () => {
    check({
      name: '$or',
      pattern: {
        source: ['aws.cloudwatch'],
        $or: [
          { metricName: ['CPUUtilization', 'ReadLatency'] },
          { namespace: ['AWS/EC2', 'AWS/ES'] },
        ],
      },
      matches: [
        { source: 'aws.cloudwatch', metricName: 'ReadLatency' },
        { source: 'aws.cloudwatch', namespace: 'AWS/ES' },
      ],
      misses: [
        { source: 'aws.cloudwatch', metricName: 'x' },
        { source: 'x', namespace: 'AWS/ES' },
      ],
    });
    check({
      name: '$or nested',
      pattern: {
        source: ['aws.cloudwatch'],
        $or: [
          { metricName: ['CPUUtilization'] },
          {
            metricType: ['MetricType'],
            namespace: ['AWS/EC2'],
            $or: [{ metricId: [1234] }, { spaceId: [1000] }],
          },
          { scope: ['Service'] },
        ],
      },
      matches: [
        '{ "source": "aws.cloudwatch", "metricType": "MetricType", "namespace": "AWS/EC2", "spaceId": 1000 }',
      ],
      misses: [
        '{ "source": "aws.cloudwatch", "metricType": "MetricType", "namespace": "AWS/EC2", "spaceId": 1001 }',
      ],
    });
  });

  it('"$or" with a single object is an ordinary field name', () => {
    check({
      name: '$or field',
      pattern: { source: ['aws.cloudwatch'], $or: { metricType: ['MetricType'] } },
      matches: [{ source: 'aws.cloudwatch', $or: { metricType: 'MetricType' } }],
      misses: [{ source: 'aws.cloudwatch', metricType: 'MetricType' }],
    });
  });

  it('wildcard: escaped stars and backslashes, no consecutive stars', () => {
    check({
      name: 'wildcard escapes',
      pattern: { source: [{ wildcard: 'Simple*Service' }] },
      matches: [{ source: 'SimpleQueueService' }, { source: 'SimpleService' }],
      misses: [{ source: 'Simple Queue' }],
    });
    check({
      name: 'literal star',
      pattern: String.raw`{ "a": [ { "wildcard": "x\\*y" } ] }`,
      matches: ['{ "a": "x*y" }'],
      misses: ['{ "a": "xzy" }'],
    });
    expect(() => compileEventPattern({ a: [{ wildcard: 'a**b' }] } as never)).toThrow(
      InvalidEventPatternError,
    );
  });
});

describe('refused patterns', () => {
  it.each([
    ['not an object', '[1]'],
    ['a bare value', '{ "a": "x" }'],
    ['an unknown operator', '{ "a": [ { "regex": "x" } ] }'],
    ['numeric on a string bound', '{ "a": [ { "numeric": [ ">", "0" ] } ] }'],
    ['numeric out of range', '{ "a": [ { "numeric": [ ">", 6e9 ] } ] }'],
    ['anything-but mixing types', '{ "a": [ { "anything-but": [ "x", 1 ] } ] }'],
    ['exists with a string', '{ "a": [ { "exists": "yes" } ] }'],
    ['an empty rule list', '{ "a": [] }'],
    ['a bad CIDR', '{ "a": [ { "cidr": "10.0.0.0/33" } ] }'],
  ])('%s', (_name, pattern) => {
    expect(() => compileEventPattern(pattern)).toThrow(InvalidEventPatternError);
  });
});

describe('parseJsonKeepingNumbers', () => {
  it('reads what JSON.parse reads, and keeps the text of each number', () => {
    const text = '{"a":[1,2.50,-3e2,"x\\u0041\\"",true,false,null,{}],"b":{"c":[]}}';
    const parsed = parseJsonKeepingNumbers(text) as { a: Array<{ text?: string }> };
    expect(parsed.a.slice(0, 3).map((n) => n.text)).toEqual(['1', '2.50', '-3e2']);
    expect(parsed.a[3]).toBe('xA"');
    expect(() => parseJsonKeepingNumbers('{"a":1,}')).toThrow();
    expect(() => parseJsonKeepingNumbers('{"a":01}')).toThrow();
  });
});
