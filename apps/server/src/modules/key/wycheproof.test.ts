import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, Code, Usage, type AlgorithmId, type ImportFormat } from '@ksp/contracts';
import { call, engines, type TestServer } from '../../test/harness.js';
import { licensedServer, testLicenseKeys } from '../../test/license.js';
import {
  hexToBase64,
  inParallel,
  wycheproof,
  type WycheproofGroup,
  type WycheproofTest,
} from '../../test/wycheproof.js';

/**
 * The Wycheproof vectors (C2SP/wycheproof, `testvectors_v1/`, kept unchanged in
 * `src/test/fixtures/wycheproof/`) through the HTTP API, as an outside user runs them: each
 * test group's key goes in through `key/import` (each distinct key once), each vector through
 * `crypto/verify`, `crypto/mac-verify` or `crypto/decapsulate`.
 *
 * - A "valid" vector must be accepted: verify answers `valid: true`, decapsulate the vector's
 *   shared secret.
 * - An "invalid" vector must be refused, never with a server fault: verify answers `valid:
 *   false` (code 0; a malformed signature is an invalid signature), or the request is refused
 *   as invalid (4000: an ML-DSA context longer than 255 bytes, an ML-KEM ciphertext of the wrong
 *   length), or its key is refused at import (a seed of the wrong length, an ML-DSA public key
 *   of the wrong length).
 * - "acceptable" vectors (only `MissingNull` in the RSA PKCS#1 v1.5 files: a DigestInfo
 *   without the NULL parameters) are refused: KSP compares the DigestInfo exactly (docs/api.md).
 *
 * Every vector runs on both engines, eight calls in flight at a time.
 */

type Outcome = 'accepted' | 'refused';
interface Run {
  file: string;
  test: WycheproofTest;
  outcome: Outcome;
  detail: string;
}

const ECDSA: [file: string, algorithm: AlgorithmId, format: 'der' | 'p1363'][] = [
  ['ecdsa_secp256r1_sha256_test', 'EC-P256', 'der'],
  ['ecdsa_secp256r1_sha256_p1363_test', 'EC-P256', 'p1363'],
  ['ecdsa_secp384r1_sha384_test', 'EC-P384', 'der'],
  ['ecdsa_secp384r1_sha384_p1363_test', 'EC-P384', 'p1363'],
  ['ecdsa_secp521r1_sha512_test', 'EC-P521', 'der'],
  ['ecdsa_secp521r1_sha512_p1363_test', 'EC-P521', 'p1363'],
  ['ecdsa_secp256k1_sha256_test', 'EC-SECP256K1', 'der'],
  ['ecdsa_secp256k1_sha256_p1363_test', 'EC-SECP256K1', 'p1363'],
];
const RSA: [file: string, algorithm: AlgorithmId, padding: 'pss' | 'pkcs1v15'][] = [
  ['rsa_signature_2048_sha256_test', 'RSA-2048', 'pkcs1v15'],
  ['rsa_signature_3072_sha256_test', 'RSA-3072', 'pkcs1v15'],
  ['rsa_pss_2048_sha256_mgf1_32_test', 'RSA-2048', 'pss'],
  ['rsa_pss_3072_sha256_mgf1_32_test', 'RSA-3072', 'pss'],
];
const HMAC: [file: string, algorithm: AlgorithmId, tagBits: number][] = [
  ['hmac_sha256_test', 'HMAC-SHA256', 256],
  ['hmac_sha384_test', 'HMAC-SHA384', 384],
  ['hmac_sha512_test', 'HMAC-SHA512', 512],
];
const ML_KEM: [file: string, algorithm: AlgorithmId][] = [
  ['mlkem_512_test', 'ML-KEM-512'],
  ['mlkem_768_test', 'ML-KEM-768'],
  ['mlkem_1024_test', 'ML-KEM-1024'],
];
const ML_DSA: [file: string, algorithm: AlgorithmId][] = [
  ['mldsa_44_verify_test', 'ML-DSA-44'],
  ['mldsa_65_verify_test', 'ML-DSA-65'],
  ['mldsa_87_verify_test', 'ML-DSA-87'],
];

const PARALLEL = 8;

describe.each(await engines())('Wycheproof vectors through the HTTP API on %s', (engine) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    // Thousands of keys: more than the community limit, so the suite's server is licensed.
    const vendor = testLicenseKeys();
    ({ server, token } = await licensedServer(engine, vendor));
  }, 60_000);
  afterAll(async () => server?.close());

  /** Imported keys by their import body, so each distinct key goes in once. */
  const imported = new Map<string, Promise<{ id: string } | { refused: string }>>();
  let names = 0;
  function importKey(body: {
    algorithm: AlgorithmId;
    format: ImportFormat;
    content: string;
    usage_mask: number;
    public_key?: string;
  }) {
    const memo = JSON.stringify(body);
    let key = imported.get(memo);
    if (!key) {
      key = call(server, api.key.import, {
        token,
        body: { name: `wp-${body.algorithm}-${++names}`, ...body },
      }).then((answer) => {
        expect(answer.status, answer.msg).toBe(200);
        if (answer.code === 0) return { id: answer.data.id };
        expect(answer.code, answer.msg).toBe(Code.INVALID);
        return { refused: answer.msg };
      });
      imported.set(memo, key);
    }
    return key;
  }

  /** Runs each test of the groups: `check` says whether the API accepted it. */
  async function runGroups(
    file: string,
    groups: WycheproofGroup[],
    keyOf: (group: WycheproofGroup, test: WycheproofTest) => Promise<{ id: string } | { refused: string }>,
    check: (keyId: string, test: WycheproofTest, group: WycheproofGroup) => Promise<[Outcome, string]>,
  ): Promise<Run[]> {
    const work = groups.flatMap((group) => group.tests.map((test) => ({ group, test })));
    const runs: Run[] = [];
    await inParallel(work, PARALLEL, async ({ group, test }) => {
      const key = await keyOf(group, test);
      if ('refused' in key) {
        runs.push({ file, test, outcome: 'refused', detail: `import: ${key.refused}` });
        return;
      }
      const [outcome, detail] = await check(key.id, test, group);
      runs.push({ file, test, outcome, detail });
    });
    return runs;
  }

  /** Verify answers: accepted when valid, refused when not valid (code 0) or invalid (4000), never a fault. */
  function verdict(answer: { status: number; code: number; msg: string; data: { valid: boolean } | null }) {
    expect(answer.status, answer.msg).toBe(200);
    if (answer.code === 0)
      return [answer.data!.valid ? 'accepted' : 'refused', 'verify'] as [Outcome, string];
    expect(answer.code, answer.msg).toBe(Code.INVALID);
    return ['refused', answer.msg] as [Outcome, string];
  }

  /** Every valid vector accepted, every invalid and acceptable one refused. */
  function judge(runs: Run[], expectedCount: number) {
    expect(runs.length).toBe(expectedCount);
    const wrong = runs
      .filter((r) => (r.test.result === 'valid') !== (r.outcome === 'accepted'))
      .map(
        (r) =>
          `${r.file} #${r.test.tcId} (${r.test.result}, ${r.test.flags.join(' ')}): ${r.outcome}, ${r.detail}`,
      );
    expect(wrong).toEqual([]);
  }

  const counted = (groups: WycheproofGroup[]) => groups.reduce((n, g) => n + g.tests.length, 0);

  /**
   * A signature file: each group's public key imported once (usage Verify), each vector's
   * signature checked by `crypto/verify` with the options the family needs; judged whole.
   */
  async function verifyFile(
    file: string,
    key: (group: WycheproofGroup) => { algorithm: AlgorithmId; format: ImportFormat; content: string },
    options: (test: WycheproofTest) => Record<string, string> = () => ({}),
  ) {
    const { testGroups } = wycheproof(file);
    const runs = await runGroups(
      file,
      testGroups,
      (group) => importKey({ ...key(group), usage_mask: Usage.Verify }),
      async (key_id, test) =>
        verdict(
          await call(server, api.crypto.verify, {
            token,
            body: { key_id, data: hexToBase64(test.msg), signature: hexToBase64(test.sig), ...options(test) },
          }),
        ),
    );
    judge(runs, counted(testGroups));
  }

  it.each(ECDSA)('ECDSA %s (%s, %s signatures): SPKI import, verify', (file, algorithm, format) =>
    verifyFile(
      file,
      (group) => ({ algorithm, format: 'spki', content: hexToBase64(group.publicKeyDer) }),
      () => ({ signature_format: format }),
    ),
  );

  it('Ed25519: PEM import, verify', () =>
    verifyFile('ed25519_test', (group) => ({
      algorithm: 'ED25519',
      format: 'pem',
      content: String(group.publicKeyPem),
    })));

  it.each(RSA)('RSA %s (%s, %s): SPKI import, verify', (file, algorithm, padding) =>
    verifyFile(
      file,
      (group) => ({ algorithm, format: 'spki', content: hexToBase64(group.publicKeyDer) }),
      () => ({ rsa_padding: padding }),
    ),
  );

  it.each(HMAC)(
    'HMAC %s (%s, full-length tags): raw import, mac-verify',
    async (file, algorithm, tagBits) => {
      const groups = wycheproof(file).testGroups.filter((g) => g.tagSize === tagBits);
      const runs = await runGroups(
        file,
        groups,
        (_group, test) =>
          importKey({
            algorithm,
            format: 'raw',
            content: hexToBase64(test.key),
            usage_mask: Usage.MacGenerate | Usage.MacVerify,
          }),
        async (key_id, test) => {
          const answer = await call(server, api.crypto.macVerify, {
            token,
            body: { key_id, data: hexToBase64(test.msg), mac: hexToBase64(test.tag) },
          });
          return verdict(answer);
        },
      );
      judge(runs, counted(groups));
    },
  );

  it.each(ML_KEM)(
    'ML-KEM %s (%s): seed import checked against ek, decapsulate (implicit rejection included)',
    async (file, algorithm) => {
      const { testGroups } = wycheproof(file);
      const runs = await runGroups(
        file,
        testGroups,
        (_group, test) =>
          importKey({
            algorithm,
            format: 'seed',
            content: hexToBase64(test.seed),
            usage_mask: Usage.KeyAgreement,
            // The public key derived from the seed must be the vector's ek, or the import is refused.
            ...(test.ek ? { public_key: hexToBase64(test.ek) } : {}),
          }),
        async (key_id, test) => {
          const answer = await call(server, api.crypto.decapsulate, {
            token,
            body: { key_id, ciphertext: hexToBase64(test.c) },
          });
          expect(answer.status, answer.msg).toBe(200);
          if (answer.code !== 0) {
            expect(answer.code, answer.msg).toBe(Code.INVALID);
            return ['refused', answer.msg];
          }
          const same = answer.data.shared_secret === hexToBase64(test.K);
          return [same ? 'accepted' : 'refused', same ? 'K' : 'another shared secret'];
        },
      );
      judge(runs, counted(testGroups));
    },
  );

  it.each(ML_DSA)('ML-DSA %s (%s): standard public key import, verify (with context)', (file, algorithm) =>
    verifyFile(
      file,
      (group) => ({ algorithm, format: 'public', content: hexToBase64(group.publicKey) }),
      (test): Record<string, string> => (test.ctx !== undefined ? { context: hexToBase64(test.ctx) } : {}),
    ),
  );
  it('records failed checks as failures in the audit log, with no key material', async () => {
    const failures = await server.database.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'crypto.verify')
      .where('result', '=', 'failure')
      .limit(5)
      .execute();
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) expect(String(f.details)).toContain('mismatch');
    const imports = await server.database.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'key.import')
      .execute();
    expect(imports.length).toBeGreaterThan(0);
    // An import record names the key, its algorithm and format, never its bytes.
    for (const i of imports) expect(String(i.details).length).toBeLessThan(400);
  });
});
