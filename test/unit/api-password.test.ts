import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiPassword, newRandomStr, RANDOM_STR_PATTERN } from '../../protocol/api-password.ts';

// The definition, written out step by step: Base64(SHA-512(Base64(SHA-512(password)) + "." + randomStr)),
// each digest over UTF-8 bytes and Base64-encoded raw.
const reference = (password: string, randomStr: string): string => {
  const inner = createHash('sha512').update(Buffer.from(password, 'utf8')).digest();
  const innerBase64 = inner.toString('base64');
  const outer = createHash('sha512')
    .update(Buffer.from(`${innerBase64}.${randomStr}`, 'utf8'))
    .digest();
  return outer.toString('base64');
};

describe('hashApiPassword', () => {
  it.each([
    ['an ASCII password', 'p@ssw0rd!', 'abcDEF123-_'],
    ['a Hangul password', '비밀번호123', 'Zx9_-q'],
    ['a password with an emoji', 'pass😀word', 'r'],
    ['the longest randomStr', 'secret', 'a'.repeat(20)],
  ])('matches the definition for %s', (_, password, randomStr) => {
    expect(hashApiPassword(password, randomStr)).toBe(reference(password, randomStr));
  });

  it('produces a padded 88-character standard Base64 string, not hex', () => {
    const hash = hashApiPassword('password', 'abc');

    expect(hash).toHaveLength(88);
    expect(hash).toMatch(/^[A-Za-z0-9+/]{86}==$/);
  });

  it('changes with the randomStr', () => {
    expect(hashApiPassword('password', 'one')).not.toBe(hashApiPassword('password', 'two'));
  });

  it('matches a vector computed with openssl over the same steps', () => {
    // printf test | openssl dgst -sha512 -binary | base64 → X;
    // printf "X.rnd" | openssl dgst -sha512 -binary | base64
    expect(hashApiPassword('test', 'rnd')).toBe(
      'qKc1GHmayIp40w+Su43i8Dwnuy9evyDeSziH2nQczGJeQbaaX05BJwpPttPR7PMj+s11Y04Tiur/4uHfh7dYOQ==',
    );
  });
});

describe('newRandomStr', () => {
  it('is 20 characters of letters, digits, "-" and "_", fresh on every call', () => {
    const values = Array.from({ length: 200 }, newRandomStr);

    for (const value of values) expect(value).toMatch(RANDOM_STR_PATTERN);
    expect(values.every((value) => value.length === 20)).toBe(true);
    expect(new Set(values).size).toBe(values.length);
  });
});
