import { describe, expect, it } from 'vitest';
import { ALGORITHM_IDS, Usage, validateUsage, type AlgorithmId, type UsageName } from '@ksp/contracts';
import {
  actionAllowed,
  algorithmGroups,
  algorithmVariant,
  allowedUsages,
  availableActions,
  base64ByteLength,
  buildCreateBody,
  buildImportBody,
  buildUpdateBody,
  checkUsage,
  editValuesOf,
  FAMILIES,
  familyLabel,
  importExpectation,
  importLengthProblem,
  importsPublicKey,
  initialKeyForm,
  initialUsage,
  isBase64,
  keyAreaOf,
  keyDetailPath,
  keyListPath,
  keyListQuery,
  labelProblem,
  labelsToRecord,
  maskOf,
  needsProfileChoice,
  normalizeBase64,
  publicUsages,
  signatureScheme,
  orderedUsages,
  profilesOf,
  recordToLabels,
  usageNames,
  usageWordOf,
  USAGE_FILTERS,
  type KeyFormValues,
} from './key-model';
import { keyRow } from './key-test-fixtures';

describe('algorithm grouping', () => {
  it('groups every algorithm under its family, families in the console order', () => {
    const groups = algorithmGroups();
    expect(groups.map((g) => g.family)).toEqual(FAMILIES);
    expect(groups.flatMap((g) => g.algorithms.map((a) => a.id)).sort()).toEqual([...ALGORITHM_IDS].sort());
    for (const group of groups) expect(group.algorithms.every((a) => a.family === group.family)).toBe(true);
    expect(groups.find((g) => g.family === 'ML-DSA')?.algorithms.map((a) => a.id)).toEqual([
      'ML-DSA-44',
      'ML-DSA-65',
      'ML-DSA-87',
    ]);
  });

  it('imports public keys with the usages a public key can honour, and builds the body of each format', () => {
    expect(importsPublicKey('spki', '')).toBe(true);
    expect(importsPublicKey('public', '')).toBe(true);
    expect(importsPublicKey('pkcs8', '')).toBe(false);
    expect(importsPublicKey('pem', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----')).toBe(true);
    expect(importsPublicKey('pem', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----')).toBe(
      false,
    );
    // An EC public key verifies; it never signs.
    expect(publicUsages('EC-P256')).toEqual(['Verify']);
    expect(publicUsages('ML-KEM-768')).toEqual(
      allowedUsages('ML-KEM-768').filter((u) => u !== 'Decrypt' && u !== 'UnwrapKey'),
    );
    expect(publicUsages('RSA-2048', 'signing')).toEqual(['Verify']);
    const base = { ...initialKeyForm('EC-P256'), name: 'partner', usages: ['Verify'] as UsageName[] };
    const pem = '-----BEGIN PUBLIC KEY-----\nMFkw\nEwYH\n-----END PUBLIC KEY-----\n';
    expect(buildImportBody({ ...base, format: 'pem', content: `  ${pem}` })).toMatchObject({
      format: 'pem',
      content: pem.trim(),
    });
    expect(buildImportBody({ ...base, format: 'spki', content: 'MFkw\nEwYH' })).toMatchObject({
      format: 'spki',
      content: 'MFkwEwYH',
    });
    const seeded = { ...initialKeyForm('ML-DSA-44'), name: 'pq', format: 'seed' as const, content: 'AAAA' };
    expect(buildImportBody({ ...seeded, publicKey: ' QUJD ' })).toMatchObject({ public_key: 'QUJD' });
    expect(buildImportBody(seeded)).not.toHaveProperty('public_key');
    expect(buildImportBody({ ...seeded, format: 'public', publicKey: 'QUJD' })).not.toHaveProperty(
      'public_key',
    );
  });

  it('says how signatures are encoded for keys that sign or verify', () => {
    expect(signatureScheme('EC', ['verify'])).toBe('ecdsa');
    expect(signatureScheme('RSA', ['sign'])).toBe('rsa');
    expect(signatureScheme('RSA', ['encrypt', 'decrypt'])).toBeNull();
    expect(signatureScheme('ML-DSA', ['sign', 'verify'])).toBe('pqc');
    expect(signatureScheme('AES', ['encrypt'])).toBeNull();
  });

  it('tells variants apart by parameter set and category, curve or size', () => {
    expect(algorithmVariant('ML-DSA-65')).toEqual({ kind: 'pqc', parameterSet: 'ML-DSA-65', category: 3 });
    expect(algorithmVariant('SLH-DSA-SHAKE-256F')).toEqual({
      kind: 'pqc',
      parameterSet: 'SLH-DSA-SHAKE-256f',
      category: 5,
    });
    expect(algorithmVariant('ML-KEM-512')).toMatchObject({ category: 1 });
    expect(algorithmVariant('EC-P384')).toEqual({ kind: 'curve', curve: 'P-384', bits: 384 });
    expect(algorithmVariant('ED25519')).toEqual({ kind: 'curve', curve: 'Curve25519', bits: 256 });
    expect(algorithmVariant('RSA-3072')).toEqual({ kind: 'bits', bits: 3072 });
    expect(familyLabel('ED25519')).toBe('Ed25519');
    expect(familyLabel('AES')).toBe('AES');
  });
});

describe('allowed usage per algorithm', () => {
  it('asks RSA and SM2 for a profile first, and no other algorithm', () => {
    const choosing = ALGORITHM_IDS.filter((id) => needsProfileChoice(id));
    expect(choosing).toEqual(['RSA-2048', 'RSA-3072', 'RSA-4096', 'SM2']);
    expect(profilesOf('SM2')).toEqual(['encryption', 'signing']);
    expect(allowedUsages('RSA-2048')).toEqual([]);
    expect(allowedUsages('RSA-2048', 'signing')).toEqual(['Sign', 'Verify']);
    expect(allowedUsages('SM2', 'encryption')).toEqual(['Encrypt', 'Decrypt', 'WrapKey', 'UnwrapKey']);
  });

  it('limits each family to its profile', () => {
    expect(allowedUsages('AES-128')).toEqual(['Encrypt', 'Decrypt', 'WrapKey', 'UnwrapKey']);
    expect(allowedUsages('HMAC-SHA384')).toEqual(['MacGenerate', 'MacVerify']);
    expect(allowedUsages('EC-P256')).toEqual(['Sign', 'Verify']);
    expect(allowedUsages('ED25519')).toEqual(['Sign', 'Verify']);
    expect(allowedUsages('ML-DSA-87')).toEqual(['Sign', 'Verify']);
    expect(allowedUsages('SLH-DSA-SHA2-128S')).toEqual(['Sign', 'Verify']);
    expect(allowedUsages('ML-KEM-768')).toEqual(['KeyAgreement']);
  });

  it('starts every algorithm with a combination validateUsage accepts (or none, for a profile choice)', () => {
    for (const id of ALGORITHM_IDS) {
      const { profile, usages } = initialUsage(id);
      if (needsProfileChoice(id)) {
        expect(profile).toBeUndefined();
        for (const p of profilesOf(id))
          expect(validateUsage(id, maskOf(allowedUsages(id, p))).valid).toBe(true);
      } else {
        expect(validateUsage(id, maskOf(usages)).valid, id).toBe(true);
      }
    }
  });

  it('checks the chosen usages with the contract rule', () => {
    expect(checkUsage('AES-256', [])).toEqual({ ok: false, problem: 'empty' });
    expect(checkUsage('AES-256', undefined)).toEqual({ ok: false, problem: 'empty' });
    expect(checkUsage('AES-256', ['Encrypt', 'Decrypt'])).toEqual({ ok: true, mask: 0xc });
    expect(checkUsage('RSA-2048', ['Encrypt', 'Sign'])).toEqual({ ok: false, problem: 'invalid' });
    expect(checkUsage('ML-DSA-65', ['Encrypt'])).toEqual({ ok: false, problem: 'invalid' });
    expect(checkUsage('SM2', ['Sign', 'Verify'])).toEqual({ ok: true, mask: 3 });
  });

  it('names the bits of a mask in display order', () => {
    expect(usageNames(Usage.Verify | Usage.Sign)).toEqual(['Sign', 'Verify']);
    expect(usageNames(0x3c)).toEqual(['Encrypt', 'Decrypt', 'WrapKey', 'UnwrapKey']);
    expect(usageNames(Usage.KeyAgreement | 0x40000000)).toEqual(['KeyAgreement']);
    expect(maskOf(['MacGenerate', 'MacVerify'])).toBe(0x180);
  });

  it('shows the usage words of a key row in display order, and filters by the words that gate an operation', () => {
    expect(orderedUsages(['verify', 'sign'])).toEqual(['sign', 'verify']);
    expect(orderedUsages(['unwrap', 'wrap', 'decrypt', 'encrypt'])).toEqual([
      'encrypt',
      'decrypt',
      'wrap',
      'unwrap',
    ]);
    expect(orderedUsages(['mac-verify', 'some-future-bit', 'mac'])).toEqual(['mac', 'mac-verify']);
    expect(usageWordOf('MacGenerate')).toBe('mac');
    expect(usageWordOf('KeyAgreement')).toBe('key-agreement');
    expect([...USAGE_FILTERS].sort()).toEqual(
      ['decrypt', 'encrypt', 'key-agreement', 'mac', 'mac-verify', 'sign', 'unwrap', 'verify', 'wrap'].sort(),
    );
  });
});

describe('Base64 validation', () => {
  it('accepts padded standard Base64, with line breaks and PEM armour removed', () => {
    expect(isBase64('AAECAw==')).toBe(true);
    expect(isBase64('AAECAwQ=')).toBe(true);
    expect(isBase64('AAECAwQF')).toBe(true);
    expect(isBase64('AAEC\nAwQF\n')).toBe(true);
    expect(isBase64('-----BEGIN PUBLIC KEY-----\nAAECAwQF\n-----END PUBLIC KEY-----\n')).toBe(true);
    expect(normalizeBase64('-----BEGIN PUBLIC KEY-----\r\nAAEC\r\nAwQF\r\n-----END PUBLIC KEY-----')).toBe(
      'AAECAwQF',
    );
  });

  it('refuses what the contract refuses', () => {
    for (const bad of ['', '   ', 'AAECAw', 'AAECA===', 'AA-_', 'not base64!', 'AAEC=AwQ', undefined, null]) {
      expect(isBase64(bad), String(bad)).toBe(false);
    }
  });

  it('counts decoded bytes', () => {
    expect(base64ByteLength('AAECAw==')).toBe(4);
    expect(base64ByteLength('AAECAwQ=')).toBe(5);
    expect(base64ByteLength('AAECAwQF')).toBe(6);
    expect(base64ByteLength(btoa('x'.repeat(32)))).toBe(32);
  });
});

describe('import content', () => {
  it('expects raw bytes of the key size, SM2 scalars, PKCS#8 for the others; no PQC', () => {
    expect(importExpectation('AES-192')).toEqual({ kind: 'raw', bytes: 24 });
    expect(importExpectation('SM4')).toEqual({ kind: 'raw', bytes: 16 });
    expect(importExpectation('HMAC-SHA256')).toEqual({ kind: 'raw-range', min: 16, max: 128 });
    expect(importExpectation('SM2')).toEqual({ kind: 'sm2-scalar', bytes: 32 });
    expect(importExpectation('RSA-4096')).toEqual({ kind: 'pkcs8' });
    expect(importExpectation('ED25519')).toEqual({ kind: 'pkcs8' });
    expect(importExpectation('ML-KEM-512')).toEqual({ kind: 'unsupported' });
  });

  it('checks the decoded length where it is fixed', () => {
    const bytes = (n: number) => btoa('k'.repeat(n));
    expect(importLengthProblem('AES-256', bytes(32))).toBeNull();
    expect(importLengthProblem('AES-256', bytes(16))).toEqual({ expected: '32', got: 16 });
    expect(importLengthProblem('HMAC-SHA512', bytes(64))).toBeNull();
    expect(importLengthProblem('HMAC-SHA512', bytes(8))).toEqual({ expected: '16–128', got: 8 });
    expect(importLengthProblem('SM2', bytes(31))).toEqual({ expected: '32', got: 31 });
    expect(importLengthProblem('RSA-2048', bytes(5))).toBeNull();
  });
});

describe('labels', () => {
  it('converts between rows and the record, dropping empty rows', () => {
    expect(
      labelsToRecord([
        { key: ' team ', value: 'billing' },
        { key: '', value: '' },
      ]),
    ).toEqual({ team: 'billing' });
    expect(recordToLabels({ a: '1', b: '2' })).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
  });

  it('finds missing keys, duplicates and too many labels', () => {
    expect(labelProblem([{ key: 'a', value: '1' }])).toBeNull();
    expect(labelProblem([{ key: ' ', value: '1' }])).toBe('keyRequired');
    expect(
      labelProblem([
        { key: 'a', value: '1' },
        { key: 'a ', value: '2' },
      ]),
    ).toBe('duplicate');
    expect(labelProblem(Array.from({ length: 33 }, (_, i) => ({ key: `k${i}`, value: '' })))).toBe('tooMany');
    expect(labelProblem([{ key: 'k'.repeat(65), value: '' }])).toBe('tooLong');
  });
});

describe('request bodies', () => {
  const form = (overrides: Partial<KeyFormValues>): KeyFormValues => ({ ...initialKeyForm(), ...overrides });

  it('builds the create body: mask from the usages, labels as a record, TDE only for AES', () => {
    const body = buildCreateBody(
      form({
        name: '  billing ',
        exportable: true,
        labels: [{ key: 'team', value: 'pay' }],
        cte: { versioned: true, persistent_on_client: false, encryption_mode: 'XTS' },
        description: ' main ',
      }),
    );
    expect(body).toEqual({
      name: 'billing',
      algorithm: 'AES-256',
      usage_mask: 0x3c,
      state: 'active',
      exportable: true,
      deletable: true,
      description: 'main',
      labels: { team: 'pay' },
      cte: { versioned: true, persistent_on_client: false, encryption_mode: 'XTS' },
    });
    const pqc = buildCreateBody(
      form({
        name: 'signer',
        algorithm: 'ML-DSA-65',
        usages: ['Sign', 'Verify'],
        state: 'pre-active',
        cte: { versioned: true, persistent_on_client: true, encryption_mode: 'CBC' },
      }),
    );
    expect(pqc).toMatchObject({ algorithm: 'ML-DSA-65', usage_mask: 3, state: 'pre-active', cte: null });
  });

  it('refuses to build a body with usages the algorithm cannot take', () => {
    expect(() =>
      buildCreateBody(form({ name: 'x', algorithm: 'RSA-2048', usages: ['Sign', 'Encrypt'] })),
    ).toThrow();
    expect(() => buildCreateBody(form({ name: 'x', usages: [] }))).toThrow();
  });

  it('builds the import body with the content normalized', () => {
    const body = buildImportBody(form({ name: 'imported', algorithm: 'AES-128', content: 'AAAA\nAAAA\n' }));
    expect(body).toMatchObject({
      name: 'imported',
      algorithm: 'AES-128',
      content: 'AAAAAAAA',
      usage_mask: 0x3c,
    });
  });

  it('builds the update body: export only switched on, TDE only for AES, name only when changed', () => {
    const row = keyRow({ labels: { a: '1' } });
    const values = editValuesOf(row);
    expect(values.labels).toEqual([{ key: 'a', value: '1' }]);
    expect(buildUpdateBody(row, values)).toEqual({
      id: row.id,
      description: '',
      labels: { a: '1' },
      deletable: true,
      cte: null,
    });
    expect(buildUpdateBody(row, { ...values, name: 'renamed', exportable: true })).toMatchObject({
      name: 'renamed',
      exportable: true,
    });
    const exportable = keyRow({ exportable: true });
    expect(
      buildUpdateBody(exportable, { ...editValuesOf(exportable), exportable: false }),
    ).not.toHaveProperty('exportable');
    const rsa = keyRow({ algorithm: 'RSA-2048', family: 'RSA', object_type: 'private' });
    expect(
      buildUpdateBody(rsa, {
        ...editValuesOf(rsa),
        cte: { versioned: false, persistent_on_client: false, encryption_mode: 'CBC' },
      }),
    ).not.toHaveProperty('cte');
  });
});

describe('lifecycle actions', () => {
  const all = new Set(['key:read', 'key:write', 'key:export']);

  it('follows the state machine', () => {
    expect(availableActions(keyRow(), all)).toEqual(['addVersion', 'disable', 'clone', 'delete']);
    expect(availableActions(keyRow({ state: 'pre-active', exportable: true }), all)).toEqual([
      'activate',
      'disable',
      'clone',
      'export',
      'destroy',
      'delete',
    ]);
    expect(availableActions(keyRow({ state: 'deactivated' }), all)).toEqual([
      'recover',
      'clone',
      'destroy',
      'delete',
    ]);
    expect(availableActions(keyRow({ state: 'compromised', deletable: false }), all)).toEqual([
      'clone',
      'destroy',
    ]);
    expect(availableActions(keyRow({ state: 'destroyed', exportable: true }), all)).toEqual(['delete']);
  });

  it('exports public keys without the exportable flag; the public half of a pair is deleted with its private key', () => {
    const pub = keyRow({ object_type: 'public', linked_key_id: '0c6f7a3e-2b1d-4e5f-8a9b-1c2d3e4f5a6b' });
    expect(actionAllowed('export', pub)).toBe(true);
    expect(actionAllowed('delete', pub)).toBe(false);
    expect(actionAllowed('delete', keyRow({ object_type: 'public', linked_key_id: null }))).toBe(true);
  });

  it('hides what the user may not do', () => {
    expect(availableActions(keyRow({ exportable: true }), new Set(['key:read']))).toEqual([]);
    expect(availableActions(keyRow({ exportable: true }), new Set(['key:read', 'key:export']))).toEqual([
      'export',
    ]);
  });
});

describe('list query and paths', () => {
  it('keeps only filter values the contract accepts', () => {
    expect(
      keyListQuery(2, 50, {
        name: ' bill ',
        state: 'destroyed',
        algorithm: 'ML-DSA-65',
        type: 'public',
        usage: 'sign',
      }),
    ).toEqual({
      page: 2,
      page_size: 50,
      name: 'bill',
      state: 'destroyed',
      algorithm: 'ML-DSA-65',
      type: 'public',
      usage: 'sign',
    });
    expect(keyListQuery(1, 20, { state: 'gone', algorithm: 'DES', type: 'secret', usage: 'fly' })).toEqual({
      page: 1,
      page_size: 20,
    });
    expect(USAGE_FILTERS).toContain('key-agreement');
  });

  it('keeps links in the area they came from', () => {
    const id = '6f1c2b9e-4a57-4c1d-9f4e-0a1b2c3d4e5f';
    expect(keyAreaOf('/kms/key')).toBe('kms');
    expect(keyAreaOf('/kms/key/detail/x')).toBe('kms');
    expect(keyAreaOf('/console/key')).toBe('console');
    expect(keyAreaOf('/kmsx')).toBe('console');
    expect(keyDetailPath('kms', id)).toBe(`/kms/key/detail/${id}`);
    expect(keyDetailPath('console', id)).toBe(`/console/key/detail/${id}`);
    expect(keyListPath('kms')).toBe('/kms/key');
    expect(keyListPath('console')).toBe('/console/key');
  });

  it('covers every algorithm id in the groups exactly once', () => {
    const ids: AlgorithmId[] = algorithmGroups().flatMap((g) => g.algorithms.map((a) => a.id));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
