import {
  algorithmInfo,
  cryptoOpPaths,
  describeUsage,
  formatMessage,
  stateLabel,
  Usage,
  type AlgorithmId,
  type CryptoOp,
  type KeyState,
  type OpClass,
} from '@ksp/contracts';
import { auditRow, callerEntry } from '../../platform/audit.js';
import {
  asymmetricDecrypt,
  asymmetricEncrypt,
  sign,
  takesKeyObject,
  verify,
  type PrivateKeyInput,
  type SignOptions,
} from '../../platform/crypto/asymmetric.js';
import {
  encodeCiphertext,
  openEnvelope,
  parseCiphertext,
  sealEnvelope,
} from '../../platform/crypto/ciphertext.js';
import { CryptoError } from '../../platform/crypto/crypto-error.js';
import { isMlKemAlgorithm, mlKemDecapsulate, mlKemEncapsulate } from '../../platform/crypto/post-quantum.js';
import { randomBytes } from '../../platform/crypto/random.js';
import {
  aesKeyUnwrapPadded,
  aesKeyWrapPadded,
  isCipherAlgorithm,
  isMacAlgorithm,
  macGenerate,
  macVerify,
} from '../../platform/crypto/symmetric.js';
import type { Db } from '../../platform/db/database.js';
import type { Durability, Journal } from '../../platform/db/journal.js';
import { isHeavy, type CryptoPool } from '../../platform/crypto/worker-pool.js';
import type { KeyTable } from '../../platform/db/schema.js';
import { invalid, KspError, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { KeyMaterial } from './key.material.js';
import { createKmipCipher } from './crypto.kmip.js';
import type { KeyCache } from './key.cache.js';

/** The signature options of a sign or verify call (contract `SignatureOptions`). */
interface SignatureFields {
  signature_format?: 'der' | 'p1363' | undefined;
  rsa_padding?: 'pss' | 'pkcs1v15' | undefined;
  context?: string | undefined;
}

/**
 * The primitive's options for a sign or verify call; a field given for an algorithm it does
 * not apply to is refused (4000) rather than ignored, so a caller never believes it was used.
 */
function signOptions(algorithm: AlgorithmId, fields: SignatureFields): SignOptions {
  const family = algorithmInfo(algorithm).family;
  const refuse = (field: string, algorithms: string) =>
    invalid('crypto.optionNotApplicable', { field, algorithms, algorithm });
  if (fields.signature_format !== undefined && family !== 'EC' && family !== 'SM2')
    throw refuse('signature_format', 'ECDSA (EC-*) and SM2');
  if (fields.rsa_padding !== undefined && family !== 'RSA') throw refuse('rsa_padding', 'RSA');
  if (fields.context !== undefined && family !== 'ML-DSA' && family !== 'SLH-DSA')
    throw refuse('context', 'ML-DSA and SLH-DSA');
  return {
    ...(fields.signature_format ? { signatureFormat: fields.signature_format } : {}),
    ...(fields.rsa_padding ? { rsaScheme: fields.rsa_padding === 'pss' ? 'PSS' : 'PKCS1-v1_5' } : {}),
    ...(fields.context !== undefined ? { context: Buffer.from(fields.context, 'base64') } : {}),
  };
}

const b64 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, 'base64'));
const out = (b: Buffer) => b.toString('base64');

/** Which usage bit each operation needs, and whether it needs the current version. */
const needs: Record<Exclude<CryptoOp, 'random'>, { bit: number; protect: boolean }> = {
  encrypt: { bit: Usage.Encrypt, protect: true },
  decrypt: { bit: Usage.Decrypt, protect: false },
  sign: { bit: Usage.Sign, protect: true },
  verify: { bit: Usage.Verify, protect: false },
  mac: { bit: Usage.MacGenerate, protect: true },
  macVerify: { bit: Usage.MacVerify, protect: false },
  dataKey: { bit: Usage.Encrypt, protect: true },
  wrap: { bit: Usage.WrapKey, protect: true },
  unwrap: { bit: Usage.UnwrapKey, protect: false },
  encapsulate: { bit: Usage.KeyAgreement, protect: true },
  decapsulate: { bit: Usage.KeyAgreement, protect: false },
};

/** The dashboard's class of each operation (its operation counters, docs/modules.md#dashboard). */
const opClassOf: Record<CryptoOp, OpClass> = {
  encrypt: 'encrypt',
  dataKey: 'encrypt',
  decrypt: 'decrypt',
  sign: 'sign',
  verify: 'verify',
  mac: 'mac',
  macVerify: 'mac',
  wrap: 'wrap',
  unwrap: 'wrap',
  encapsulate: 'wrap',
  decapsulate: 'wrap',
  random: 'other',
};

/** The operation names callers see (the crypto API's path segments). */
const opNames = cryptoOpPaths;

/**
 * The cryptographic API for applications. Only keys in use protect (encrypt, sign, MAC,
 * wrap, encapsulate) and only with their current version; older versions of keys in use
 * still decrypt and verify; inactive, disabled and destroyed keys refuse every operation
 * (4220). Each operation is answered once its audit record and the key's counter are
 * committed (group commit through the journal); a failed check, or every operation with
 * `operationRecords: 'disk'`, once they are on disk.
 */
export function createCryptoService(deps: {
  db: Db;
  material: KeyMaterial;
  pool: CryptoPool;
  keys: KeyCache;
  journal: Journal;
  /** When a successful operation is answered (KSP_OPERATION_RECORDS). */
  operationRecords: Durability;
  /** Counts an answered operation for the dashboard: an addition in memory, no I/O. */
  countOp: (domainId: string, opClass: OpClass) => void;
}) {
  const { db, material, keys } = deps;

  async function resolve(actor: Actor, keyId: string, op: Exclude<CryptoOp, 'random'>, wantPrivate: boolean) {
    const row = await keys.key(actor.domainId, keyId);
    if (!row) throw notFound('key.notFound', { id: keyId });
    const rule = needs[op];
    const name = opNames[op];
    if (row.state !== 'active') {
      throw stateForbids('crypto.keyNotInUse', {
        name: row.name,
        state: stateLabel(row.state as KeyState),
        op: name,
      });
    }
    if ((row.usage_mask & rule.bit) === 0) {
      throw stateForbids('crypto.usageRefused', {
        name: row.name,
        op: name,
        usage: describeUsage(row.usage_mask).join(', ') || '-',
      });
    }
    if (wantPrivate && row.object_type === 'public') {
      // The public half of a pair only verifies, encrypts and encapsulates: an operation that
      // needs the private key is asked of the private key's own id, never resolved through the link.
      const priv = row.linked_key_id ? await keys.key(actor.domainId, row.linked_key_id) : undefined;
      if (!priv) throw stateForbids('crypto.publicKeyAlone', { name: row.name, op: name });
      throw stateForbids('crypto.publicKeyOnly', { name: row.name, op: name, private: priv.name });
    }
    return row;
  }

  /** Unwraps the version's material with the domain's KEK. */
  const opener = (actor: Actor, row: KeyTable, version: number) => (wrapped: string) =>
    material.open(db, actor.domainId, row.id, version, wrapped);

  /** A copy of the version's material (the caller zeroes it), or undefined when it is gone. */
  function secretMaybe(actor: Actor, row: KeyTable, version: number): Promise<Buffer | undefined> {
    return keys.secret(row.id, version, opener(actor, row, version));
  }

  async function secretOf(actor: Actor, row: KeyTable, version: number): Promise<Buffer> {
    const secret = await secretMaybe(actor, row, version);
    if (!secret) throw stateForbids('crypto.versionGone', { name: row.name, version });
    return secret;
  }

  /** Runs `use` with a copy of the version's material, and zeroes the copy afterwards. */
  async function withSecret<T>(
    actor: Actor,
    row: KeyTable,
    version: number,
    use: (secret: Buffer) => Promise<T>,
  ): Promise<T> {
    const secret = await secretOf(actor, row, version);
    try {
      return await use(secret);
    } finally {
      secret.fill(0);
    }
  }

  /**
   * Runs `use` with the version's key: for RSA, EC and Ed25519 the private key object the
   * cache parsed (the cache drops it when the key changes or its entry expires), for other
   * algorithms a copy of the material, zeroed afterwards as by `withSecret`.
   */
  async function withKey<T>(
    actor: Actor,
    row: KeyTable,
    version: number,
    use: (key: PrivateKeyInput) => Promise<T>,
  ): Promise<T> {
    if (!takesKeyObject(algo(row))) return withSecret(actor, row, version, use);
    const key = await keys.privateKey(row.id, version, opener(actor, row, version));
    if (!key) throw stateForbids('crypto.versionGone', { name: row.name, version });
    try {
      return await use(key);
    } finally {
      if (Buffer.isBuffer(key)) key.fill(0);
    }
  }

  /** The version's public key, or undefined when it has none. */
  async function publicKeyOf(row: KeyTable, version: number): Promise<Buffer | undefined> {
    const source = row.object_type === 'private' && row.linked_key_id ? row.linked_key_id : row.id;
    const v = await keys.version(source, version);
    return v?.public_key ? Buffer.from(v.public_key, 'base64') : undefined;
  }

  async function publicOf(row: KeyTable, version: number): Promise<Buffer> {
    const pub = await publicKeyOf(row, version);
    if (!pub) throw stateForbids('crypto.versionGone', { name: row.name, version });
    return pub;
  }

  function checkVersion(row: KeyTable, version: number | undefined): number {
    const v = version ?? row.current_version;
    if (v < 1 || v > row.current_version)
      throw stateForbids('crypto.versionGone', { name: row.name, version: v });
    return v;
  }

  /**
   * The versions a check (verify, mac-verify, unwrap) is tried with: the one asked for, or
   * else every version of the key, newest first. Only keys in use get here (`resolve`), and
   * every version of a key in use may check; versions without material are skipped.
   */
  function checkVersions(row: KeyTable, version: number | undefined): number[] {
    if (version !== undefined) return [checkVersion(row, version)];
    return Array.from({ length: row.current_version }, (_, i) => row.current_version - i);
  }

  /** Tries `attempt` with each version's key; the first version it succeeds with, or null. */
  async function firstMatch(
    row: KeyTable,
    versions: number[],
    keyOf: (version: number) => Promise<Buffer | undefined>,
    attempt: (key: Buffer) => boolean | Promise<boolean>,
  ): Promise<number | null> {
    let tried = 0;
    for (const version of versions) {
      const key = await keyOf(version);
      if (!key) continue;
      tried++;
      try {
        if (await attempt(key)) return version;
      } finally {
        key.fill(0);
      }
    }
    if (tried === 0) throw stateForbids('crypto.versionGone', { name: row.name, version: versions[0] ?? 0 });
    return null;
  }

  /**
   * A check (verify, mac-verify) with each of `versions`: valid with the first version whose
   * key matches; a check that matches none is audited as failed.
   */
  async function check(
    actor: Actor,
    meta: RequestMeta,
    op: CryptoOp,
    row: KeyTable,
    requested: number | undefined,
    versions: number[],
    keyOf: (version: number) => Promise<Buffer | undefined>,
    attempt: (key: Buffer) => boolean | Promise<boolean>,
  ) {
    const matched = await run(
      actor,
      meta,
      op,
      row,
      requested ?? null,
      () => firstMatch(row, versions, keyOf, attempt),
      (version) => ({ failed: version === null, version: version ?? requested ?? null }),
    );
    return { valid: matched !== null, key_id: row.id, version: matched };
  }

  const refuse = (row: KeyTable, op: CryptoOp) =>
    stateForbids('crypto.wrongKeyType', { name: row.name, algorithm: row.algorithm, op: opNames[op] });

  /**
   * Hands the operation's audit record and the key's counter to the group commit and waits
   * until they are written. Failed checks are recorded as well, with result 'failure', each
   * on its own; identical successful operations committed together share one record.
   */
  function record(
    actor: Actor,
    meta: RequestMeta,
    op: CryptoOp,
    row: KeyTable | null,
    version: number | null,
    failure?: string,
  ): Promise<void> {
    return deps.journal.write(
      {
        counted: { kms_key: row ? [row.id] : [] },
        [failure ? 'audit' : 'operations']: [
          auditRow(
            callerEntry(actor, meta, {
              action: `crypto.${opNames[op]}`,
              target: row?.name ?? '-',
              result: failure ? 'failure' : 'success',
              objectId: row?.id ?? null,
              details: {
                ...(row ? { key_id: row.id, version } : {}),
                ...(failure ? { reason: failure } : {}),
              },
            }),
          ),
        ],
      },
      failure ? 'disk' : deps.operationRecords,
    );
  }

  /**
   * Runs an operation, maps primitive errors to envelope codes, audits, counts. `judge` says
   * whether an answered check failed (a signature or MAC that does not match) and which
   * version the record names.
   */
  async function run<T>(
    actor: Actor,
    meta: RequestMeta,
    op: CryptoOp,
    row: KeyTable | null,
    version: number | null,
    work: () => T | Promise<T>,
    judge?: (result: T) => { failed: boolean; version: number | null },
  ): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (err instanceof CryptoError) {
        await record(actor, meta, op, row, version, err.code);
        if (err.code === 'authentication-failed')
          throw invalid(op === 'unwrap' ? 'crypto.unwrapFailed' : 'crypto.decryptFailed');
        if (err.code === 'unsupported')
          throw stateForbids('crypto.failed', { op: opNames[op], reason: err.message });
        throw invalid('crypto.failed', { op: opNames[op], reason: err.message });
      }
      throw err;
    }
    const verdict = judge?.(result);
    await record(
      actor,
      meta,
      op,
      row,
      verdict ? verdict.version : version,
      verdict?.failed ? 'mismatch' : undefined,
    );
    // Answered operations only (a check answering "not valid" included); refusals and errors are not counted.
    deps.countOp(actor.domainId, opClassOf[op]);
    return result;
  }

  const algo = (row: KeyTable) => row.algorithm as AlgorithmId;

  const ops = {
    async encrypt(
      actor: Actor,
      meta: RequestMeta,
      body: { key_id: string; plaintext: string; aad?: string | undefined },
    ) {
      const row = await resolve(actor, body.key_id, 'encrypt', false);
      const alg = algo(row);
      const version = row.current_version;
      const plaintext = b64(body.plaintext)!;
      if (isCipherAlgorithm(alg)) {
        const ciphertext = await withSecret(actor, row, version, (key) =>
          run(actor, meta, 'encrypt', row, version, () =>
            sealEnvelope({
              keyId: row.id,
              keyVersion: version,
              algorithm: alg,
              key,
              plaintext,
              ...(body.aad ? { aad: b64(body.aad)! } : {}),
            }),
          ),
        );
        return { ciphertext, key_id: row.id, version };
      }
      if (algorithmInfo(alg).kind === 'asymmetric' && !isMlKemAlgorithm(alg)) {
        const owner = row.object_type === 'public' && row.linked_key_id ? row.linked_key_id : row.id;
        const pub = await publicOf(row, version);
        const ciphertext = await run(actor, meta, 'encrypt', row, version, () =>
          encodeCiphertext({
            keyId: owner,
            keyVersion: version,
            algorithm: alg,
            iv: Buffer.alloc(0),
            tag: Buffer.alloc(0),
            ciphertext: asymmetricEncrypt(alg, pub, plaintext),
          }),
        );
        return { ciphertext, key_id: row.id, version };
      }
      throw refuse(row, 'encrypt');
    },

    async decrypt(
      actor: Actor,
      meta: RequestMeta,
      body: { ciphertext: string; aad?: string | undefined; key_id?: string | undefined },
    ) {
      let header;
      try {
        header = parseCiphertext(body.ciphertext);
      } catch (err) {
        const reason = err instanceof Error ? err.message : 'malformed ciphertext';
        // An altered ciphertext may no longer name its key: the failure is recorded all the same.
        await record(actor, meta, 'decrypt', null, null, 'malformed');
        throw invalid('crypto.failed', { op: 'decrypt', reason });
      }
      if (body.key_id && body.key_id !== header.keyId)
        throw invalid('crypto.keyMismatch', { id: header.keyId });
      const row = await resolve(actor, header.keyId, 'decrypt', true);
      const version = checkVersion(row, header.keyVersion);
      const plaintext = await withKey(actor, row, version, (key) =>
        run(actor, meta, 'decrypt', row, version, () =>
          isCipherAlgorithm(algo(row)) && Buffer.isBuffer(key)
            ? openEnvelope(body.ciphertext, () => key, b64(body.aad)).plaintext
            : asymmetricDecrypt(algo(row), key, header.ciphertext),
        ),
      );
      return { plaintext: out(plaintext), key_id: row.id, version };
    },

    async sign(actor: Actor, meta: RequestMeta, body: { key_id: string; data: string } & SignatureFields) {
      const row = await resolve(actor, body.key_id, 'sign', true);
      if (algorithmInfo(algo(row)).kind !== 'asymmetric') throw refuse(row, 'sign');
      const options = signOptions(algo(row), body);
      const version = row.current_version;
      const signature = await withKey(actor, row, version, (key) => {
        const data = b64(body.data)!;
        const alg = algo(row);
        // Post-quantum signing runs in JavaScript: a worker thread keeps the event loop free.
        return run(actor, meta, 'sign', row, version, () =>
          isHeavy(alg) && Buffer.isBuffer(key)
            ? deps.pool.sign(alg, key, data, options.context)
            : sign(alg, key, data, options),
        );
      });
      return { signature: out(signature), key_id: row.id, version };
    },

    async verify(
      actor: Actor,
      meta: RequestMeta,
      body: {
        key_id: string;
        data: string;
        signature: string;
        version?: number | undefined;
      } & SignatureFields,
    ) {
      const row = await resolve(actor, body.key_id, 'verify', false);
      const alg = algo(row);
      if (algorithmInfo(alg).kind !== 'asymmetric') throw refuse(row, 'verify');
      const options = signOptions(alg, body);
      const versions = checkVersions(row, body.version);
      const data = b64(body.data)!;
      const signature = b64(body.signature)!;
      return check(
        actor,
        meta,
        'verify',
        row,
        body.version,
        versions,
        (v) => publicKeyOf(row, v),
        (pub) => verify(alg, pub, data, signature, options),
      );
    },

    async mac(actor: Actor, meta: RequestMeta, body: { key_id: string; data: string }) {
      const row = await resolve(actor, body.key_id, 'mac', false);
      const alg = algo(row);
      if (!isMacAlgorithm(alg)) throw refuse(row, 'mac');
      const version = row.current_version;
      const mac = await withSecret(actor, row, version, (secret) =>
        run(actor, meta, 'mac', row, version, () => macGenerate(alg, secret, b64(body.data)!)),
      );
      return { mac: out(mac), key_id: row.id, version };
    },

    async macVerify(
      actor: Actor,
      meta: RequestMeta,
      body: { key_id: string; data: string; mac: string; version?: number | undefined },
    ) {
      const row = await resolve(actor, body.key_id, 'macVerify', false);
      const alg = algo(row);
      if (!isMacAlgorithm(alg)) throw refuse(row, 'macVerify');
      const versions = checkVersions(row, body.version);
      const data = b64(body.data)!;
      const mac = b64(body.mac)!;
      return check(
        actor,
        meta,
        'macVerify',
        row,
        body.version,
        versions,
        (v) => secretMaybe(actor, row, v),
        (key) => macVerify(alg, key, data, mac),
      );
    },

    async dataKey(actor: Actor, meta: RequestMeta, body: { key_id: string; bytes: 16 | 24 | 32 }) {
      const row = await resolve(actor, body.key_id, 'dataKey', false);
      const alg = algo(row);
      if (!isCipherAlgorithm(alg)) throw refuse(row, 'dataKey');
      const version = row.current_version;
      const key = await secretOf(actor, row, version);
      const dataKey = randomBytes(body.bytes);
      try {
        const ciphertext = await run(actor, meta, 'dataKey', row, version, () =>
          sealEnvelope({ keyId: row.id, keyVersion: version, algorithm: alg, key, plaintext: dataKey }),
        );
        return { plaintext: out(dataKey), ciphertext, key_id: row.id, version };
      } finally {
        key.fill(0);
        dataKey.fill(0);
      }
    },

    async wrap(actor: Actor, meta: RequestMeta, body: { key_id: string; key_material: string }) {
      const row = await resolve(actor, body.key_id, 'wrap', false);
      if (algorithmInfo(algo(row)).family !== 'AES') throw refuse(row, 'wrap');
      const version = row.current_version;
      const wrapped = await withSecret(actor, row, version, (kek) =>
        run(actor, meta, 'wrap', row, version, () => aesKeyWrapPadded(kek, b64(body.key_material)!)),
      );
      return { wrapped: out(wrapped), key_id: row.id, version };
    },

    async unwrap(
      actor: Actor,
      meta: RequestMeta,
      body: { key_id: string; wrapped: string; version?: number | undefined },
    ) {
      const row = await resolve(actor, body.key_id, 'unwrap', false);
      if (algorithmInfo(algo(row)).family !== 'AES') throw refuse(row, 'unwrap');
      const versions = checkVersions(row, body.version);
      const wrapped = b64(body.wrapped)!;
      let material: Buffer | undefined;
      const matched = await run(actor, meta, 'unwrap', row, body.version ?? null, async () => {
        const version = await firstMatch(
          row,
          versions,
          (v) => secretMaybe(actor, row, v),
          (kek) => {
            try {
              material = aesKeyUnwrapPadded(kek, wrapped);
              return true;
            } catch (err) {
              // The integrity check of RFC 5649 tells a wrong version from the right one.
              if (err instanceof CryptoError && err.code === 'authentication-failed') return false;
              throw err;
            }
          },
        );
        if (version === null)
          throw new CryptoError('authentication-failed', 'AES key unwrap failed with every version');
        return version;
      });
      return { key_material: out(material!), key_id: row.id, version: matched };
    },

    async encapsulate(actor: Actor, meta: RequestMeta, body: { key_id: string }) {
      const row = await resolve(actor, body.key_id, 'encapsulate', false);
      const alg = algo(row);
      if (!isMlKemAlgorithm(alg)) throw refuse(row, 'encapsulate');
      const version = row.current_version;
      const pub = await publicOf(row, version);
      const result = await run(actor, meta, 'encapsulate', row, version, () => mlKemEncapsulate(alg, pub));
      return {
        ciphertext: out(result.ciphertext),
        shared_secret: out(result.sharedSecret),
        key_id: row.id,
        version,
      };
    },

    async decapsulate(
      actor: Actor,
      meta: RequestMeta,
      body: { key_id: string; ciphertext: string; version?: number | undefined },
    ) {
      const row = await resolve(actor, body.key_id, 'decapsulate', true);
      const alg = algo(row);
      if (!isMlKemAlgorithm(alg)) throw refuse(row, 'decapsulate');
      const version = checkVersion(row, body.version);
      const shared = await withSecret(actor, row, version, (secret) =>
        run(actor, meta, 'decapsulate', row, version, () =>
          mlKemDecapsulate(alg, secret, b64(body.ciphertext)!),
        ),
      );
      return { shared_secret: out(shared), key_id: row.id, version };
    },

    async random(actor: Actor, meta: RequestMeta, body: { bytes: number }) {
      const bytes = await run(actor, meta, 'random', null, null, () => randomBytes(body.bytes));
      return { random: out(bytes) };
    },
  };

  type BatchOp = (a: Actor, m: RequestMeta, b: unknown) => Promise<unknown>;

  /** Each item answers on its own: a refused item does not stop the others. */
  async function batch(actor: Actor, meta: RequestMeta, items: ({ op: string } & Record<string, unknown>)[]) {
    const byPath = Object.fromEntries(Object.entries(opNames).map(([k, v]) => [v, k as CryptoOp]));
    const results = [];
    for (const item of items) {
      const op = byPath[item.op];
      try {
        if (!op) throw invalid('crypto.failed', { op: item.op, reason: 'unknown operation' });
        // Called as a method of `ops`, not detached from it.
        const data = await (ops[op] as BatchOp)(actor, meta, item);
        // The same message as the envelope of a successful call, in the caller's language.
        results.push({ code: 0, msg: formatMessage('ok', meta.lang), data });
      } catch (err) {
        if (err instanceof KspError)
          results.push({
            code: err.code,
            msg: formatMessage(err.messageKey, meta.lang, err.params),
            data: null,
          });
        else throw err;
      }
    }
    return results;
  }

  /** KMIP's Encrypt and Decrypt (crypto.kmip.ts), on the same checks, records and counters. */
  const kmipCipher = createKmipCipher({ resolve, withSecret, withKey, publicOf, run });

  return { ...ops, batch, kmipCipher };
}

export type CryptoService = ReturnType<typeof createCryptoService>;
