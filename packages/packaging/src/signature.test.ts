import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectPackage } from './inspect.js';
import { parseMinisignPublicKey, signingMessage, verifyMinisign } from './signature.js';
import { minisignKeys, signFixturePackage, writeFixturePackage } from './test-fixtures.js';

// Produced by the real `minisign` 0.11 (Debian) with `minisign -S` and `minisign -S -l`, over
// the message below: an interop check of the verifier against the reference implementation.
const REAL_PUBLIC_KEY = 'RWSUvwfBv3m15IQ4qZc6KPbIiU0uIYjZ5lTFoojXqXRDH6BIwn3GUbDs';
const REAL_MESSAGE = signingMessage({
  publisher: 'acme',
  publicKey: REAL_PUBLIC_KEY,
  id: 'demo',
  version: '1.0.0',
  contentSha256: 'a'.repeat(64),
});
const REAL_SIGNATURE = `untrusted comment: signature from minisign secret key
RUSUvwfBv3m15AzRKoQFNSo0p6fl8h78m1c4MJ+J7rGEOuUb6HYo1pFJGOCguLG5+MqBZSUB5MtPIhbzsvqKdAxYxMcuterTBQc=
trusted comment: CLAT plugin demo 1.0.0
A03rgtXYgIE3CWJJPilaXaAbFttND/y3ov4/La8MEieEkAajtWGbHxzl7ZnyA2ev6JiRgY8JCHfFhBGLoMxcAw==
`;
const REAL_LEGACY_SIGNATURE = `untrusted comment: signature from minisign secret key
RWSUvwfBv3m15B4xhB1HGhybAhIE+2a6ap0DmsS4B2B3P88keBDCIxsbtezKnmaYOYWD5VmkRK7leAb1LP91a+ZvAvx41EwzEwE=
trusted comment: CLAT plugin demo 1.0.0
VldB8FfrHepDds3zBuNTRTovK/2KOhBf6KkixplvR+qDZm9XWPtPAZSkTDd6zLU5gB0zeIc23ekFqReGxcG5Aw==
`;

describe('verifyMinisign', () => {
  it('verifies a signature made by the real minisign, including the trusted comment', () => {
    expect(verifyMinisign(Buffer.from(REAL_MESSAGE), REAL_SIGNATURE, REAL_PUBLIC_KEY)).toEqual({
      trustedComment: 'CLAT plugin demo 1.0.0',
    });
    const pubFile = `untrusted comment: minisign public key E4B579BFC107BF94\n${REAL_PUBLIC_KEY}\n`;
    expect(() => verifyMinisign(Buffer.from(REAL_MESSAGE), REAL_SIGNATURE, pubFile)).not.toThrow();
  });

  it('rejects a changed message, a changed trusted comment and a legacy signature', () => {
    expect(() =>
      verifyMinisign(Buffer.from(`${REAL_MESSAGE}x`), REAL_SIGNATURE, REAL_PUBLIC_KEY),
    ).toThrow('signature does not match the package content');
    const comment = REAL_SIGNATURE.replace('demo 1.0.0', 'demo 9.9.9');
    expect(() => verifyMinisign(Buffer.from(REAL_MESSAGE), comment, REAL_PUBLIC_KEY)).toThrow(
      'trusted comment signature does not verify',
    );
    expect(() =>
      verifyMinisign(Buffer.from(REAL_MESSAGE), REAL_LEGACY_SIGNATURE, REAL_PUBLIC_KEY),
    ).toThrow('legacy (non-prehashed) Minisign signature');
  });

  it('rejects another key and malformed input, naming the file', () => {
    const other = minisignKeys();
    expect(() =>
      verifyMinisign(Buffer.from(REAL_MESSAGE), REAL_SIGNATURE, other.publicKey),
    ).toThrow('clat-plugin.minisig: was made with a different key');
    expect(() => verifyMinisign(Buffer.from(REAL_MESSAGE), 'nope', REAL_PUBLIC_KEY)).toThrow(
      'clat-plugin.minisig: is not a Minisign signature',
    );
    expect(() => parseMinisignPublicKey('clat-plugin.publisher.json', 'abc!')).toThrow(
      'clat-plugin.publisher.json: publicKey is not base64',
    );
  });
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signed-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('signed packages', () => {
  it('inspects a signed package as publisher-verified', async () => {
    const keys = minisignKeys();
    await writeFixturePackage(dir);
    await signFixturePackage(dir, keys, 'acme');
    const inspected = await inspectPackage(dir);
    expect(inspected.trust).toBe('publisher-verified');
    expect(inspected.publisher).toEqual({ publisher: 'acme', publicKey: keys.publicKey });
  });

  it('rejects content changed after signing, a lone file and a bad publisher file', async () => {
    const keys = minisignKeys();
    await writeFixturePackage(dir);
    await signFixturePackage(dir, keys);
    await writeFile(join(dir, 'added.txt'), 'x');
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: 'clat-plugin.minisig: signature does not match the package content',
    });
    await rm(join(dir, 'added.txt'));
    await rm(join(dir, 'clat-plugin.minisig'));
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      code: 'SIGNATURE_INVALID',
      message: expect.stringContaining('clat-plugin.minisig is missing'),
    });
    await writeFile(
      join(dir, 'clat-plugin.publisher.json'),
      JSON.stringify({ schemaVersion: 1, publisher: 'ACME', publicKey: keys.publicKey }),
    );
    await writeFile(join(dir, 'clat-plugin.minisig'), 'x');
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      message: expect.stringMatching(/^clat-plugin.publisher.json: publisher: must be 1-128/),
    });
  });

  it('rejects a legacy signature even when it verifies', async () => {
    await writeFixturePackage(dir);
    await signFixturePackage(dir, minisignKeys(), 'acme', { legacy: true });
    await expect(inspectPackage(dir)).rejects.toMatchObject({
      message: expect.stringContaining('legacy (non-prehashed)'),
    });
  });
});
