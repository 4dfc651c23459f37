import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import {
  HSM_DEFAULT_KEY_LABEL,
  type HsmCertificates,
  type HsmStatus,
  type HsmTarget,
  type HsmTestResult,
  type MessageKey,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { HsmTable } from '../../platform/db/schema.js';
import { invalid, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { aeadSeal } from '../../platform/keyring/aead.js';
import type { HsmSettings } from '../../platform/keyring/hsm-settings.js';
import type { Keyring } from '../../platform/keyring/keyring.js';
import { Pkcs11Root, type TokenFacts } from '../../platform/keyring/pkcs11-root.js';
import { RootUnavailable } from '../../platform/keyring/root-of-trust.js';
import type { ModuleServices } from '../../platform/module.js';
import { saveBinding, updateHsmRow } from './hsm.store.js';

const CLIENT_KEY_AAD = 'ksp/hsm/client-key';
const CLIENT_KEY_LABEL = 'hsm/client-key';

const certificateBlocks = (text: string) =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/** A failing token as the caller's error: a wrong or refused library path or PIN names its field (4000). */
function callError(err: unknown): unknown {
  if (!(err instanceof RootUnavailable)) return err;
  const key = err.reason as MessageKey;
  if (
    err.reason === 'hsm.library' ||
    err.reason === 'hsm.libraryNotAllowed' ||
    err.reason === 'hsm.pinRefused'
  )
    return invalid(key, err.params);
  return stateForbids(key, err.params);
}

/**
 * Settings › HSM (docs/modules.md#hsm-root-of-trust): binds the root key to a PKCS#11 token and back to a seal
 * file through the system service (which never loses the root key: README.md), the "test"
 * round trip, and the certificate fields of docs/modules.md#hsm-root-of-trust. Every change and refusal is audited.
 */
export function createHsmService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  keyring: Keyring;
  settings: HsmSettings;
  /** KSP_PKCS11_DIRS: where a library may be loaded from. */
  pkcs11Dirs: readonly string[];
  system: ModuleServices['system'];
}) {
  const { db, clock, settings, system } = deps;

  async function status(): Promise<HsmStatus> {
    const [provider, row] = await Promise.all([system.rootProvider(), settings.row(db)]);
    return {
      root_provider: provider,
      bound: provider === 'pkcs11',
      configured: Boolean(row),
      seal_file: provider === 'seal-file' ? system.sealFilePath : null,
      library: row?.library ?? null,
      slot_serial: row?.slot_serial ?? null,
      token_label: row?.token_label ?? null,
      key_label: row?.key_label ?? null,
      bound_at: row?.bound_at ?? null,
      hsm_certificate: row?.hsm_certificate ?? null,
      client_certificate: row?.client_certificate ?? null,
      client_private_key_set: Boolean(row?.client_key_sealed),
      server_certificate: row?.server_certificate ?? null,
      updated_at: row?.updated_at ?? null,
    };
  }

  /** Records a change that succeeded. */
  const succeeded = (
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    details: Record<string, string | number | boolean | null>,
  ) => deps.audit.byCaller(db, actor, meta, { action, target, details });

  /** Runs a change; a refusal is audited with its reason (never the PIN) and rethrown. */
  const audited = <T>(
    actor: Actor,
    meta: RequestMeta,
    action: string,
    target: string,
    work: () => Promise<T>,
  ): Promise<T> => deps.audit.refusalAudited(db, actor, meta, { action, target }, work, callError);

  const rootFor = (t: HsmTarget, facts?: TokenFacts) =>
    new Pkcs11Root({
      library: t.library,
      allowedDirs: deps.pkcs11Dirs,
      serial: facts?.serial ?? t.slot_serial ?? null,
      label: facts ? null : (t.token_label ?? null),
      pin: t.pin,
      keyLabel: t.key_label ?? HSM_DEFAULT_KEY_LABEL,
    });

  async function bind(actor: Actor, meta: RequestMeta, body: HsmTarget): Promise<HsmStatus> {
    const target = body.slot_serial || body.token_label || '*';
    return audited(actor, meta, 'hsm.bind', target, async () => {
      // A round trip first: the token answers, the key exists (made here if not) and works.
      const facts = rootFor(body).roundTrip(true);
      const now = clock().toISOString();
      await system.rewrapRoot(rootFor(body, facts), async (trx) => {
        const values = {
          library: body.library,
          slot_serial: facts.serial,
          token_label: facts.label,
          key_label: facts.key_label,
          pin_sealed: settings.sealPin(body.pin),
          bound_at: now,
          updated_at: now,
        };
        await saveBinding(trx, values);
      });
      await succeeded(actor, meta, 'hsm.bind', facts.serial, {
        library: body.library,
        slot_serial: facts.serial,
        token_label: facts.label,
        key_label: facts.key_label,
        key_created: facts.key_created,
      });
      return status();
    });
  }

  async function unbind(actor: Actor, meta: RequestMeta): Promise<HsmStatus> {
    return audited(actor, meta, 'hsm.unbind', 'seal file', async () => {
      if ((await system.rootProvider()) !== 'pkcs11') throw stateForbids('hsm.notBound');
      const row = await settings.row(db);
      await system.rewrapRoot(system.sealRoot, async (trx) => {
        await updateHsmRow(trx, { bound_at: null, updated_at: clock().toISOString() });
      });
      await succeeded(actor, meta, 'hsm.unbind', row?.slot_serial ?? '', {
        seal_file: system.sealFilePath,
      });
      return status();
    });
  }

  async function test(
    actor: Actor,
    meta: RequestMeta,
    body: Partial<HsmTarget> | undefined,
  ): Promise<HsmTestResult> {
    const row = await settings.row(db);
    const given = body?.library ? body : null;
    const target = given ? given.slot_serial || given.token_label || '*' : (row?.slot_serial ?? '');
    return audited(actor, meta, 'hsm.test', target, async () => {
      let facts: TokenFacts;
      if (given) {
        if (!given.pin) throw invalid('hsm.fieldRequired', { field: 'pin' });
        facts = rootFor({ ...given, library: given.library!, pin: given.pin }).roundTrip(true);
      } else {
        if (!row) throw stateForbids('hsm.notConfigured');
        facts = settings.rootOf(row).roundTrip(false);
      }
      await succeeded(actor, meta, 'hsm.test', facts.serial, {
        key_label: facts.key_label,
        key_created: facts.key_created,
      });
      return {
        ok: true as const,
        slot_serial: facts.serial,
        token_label: facts.label,
        manufacturer: facts.manufacturer,
        model: facts.model,
        key_label: facts.key_label,
        key_sensitive: facts.key_sensitive,
        key_extractable: facts.key_extractable,
        key_created: facts.key_created,
      };
    });
  }

  function checkCertificate(field: string, text: string) {
    const blocks = certificateBlocks(text);
    if (blocks.length === 0) throw invalid('hsm.badPem', { field, kind: 'certificate' });
    for (const pem of blocks) {
      try {
        new X509Certificate(pem);
      } catch {
        throw invalid('hsm.badPem', { field, kind: 'certificate' });
      }
    }
  }

  async function certificates(actor: Actor, meta: RequestMeta, body: HsmCertificates): Promise<HsmStatus> {
    return audited(actor, meta, 'hsm.certificates', 'certificates', async () => {
      const row = await settings.row(db);
      if (!row) throw stateForbids('hsm.notConfigured');
      const next: Partial<HsmTable> = {};
      for (const field of ['hsm_certificate', 'client_certificate', 'server_certificate'] as const) {
        const value = body[field];
        if (value === undefined) continue;
        if (value !== '') checkCertificate(field, value);
        next[field] = value === '' ? null : value;
      }
      const clientCert =
        next.client_certificate !== undefined ? next.client_certificate : row.client_certificate;
      if (body.client_private_key !== undefined && body.client_private_key !== '') {
        let pub: Buffer;
        try {
          pub = createPublicKey(createPrivateKey(body.client_private_key)).export({
            type: 'spki',
            format: 'der',
          });
        } catch {
          throw invalid('hsm.badPem', { field: 'client_private_key', kind: 'private key' });
        }
        if (clientCert) {
          const certKey = new X509Certificate(certificateBlocks(clientCert)[0]!).publicKey.export({
            type: 'spki',
            format: 'der',
          });
          if (!pub.equals(certKey)) throw invalid('hsm.keyMismatch');
        }
        next.client_key_sealed = aeadSeal(
          deps.keyring.deriveKey(CLIENT_KEY_LABEL),
          Buffer.from(body.client_private_key, 'utf8'),
          CLIENT_KEY_AAD,
        );
      } else if (body.client_private_key === '') next.client_key_sealed = null;
      const changed = Object.keys(next);
      next.updated_at = clock().toISOString();
      await updateHsmRow(db, next);
      await succeeded(actor, meta, 'hsm.certificates', row.slot_serial, {
        fields: changed.map((f) => (f === 'client_key_sealed' ? 'client_private_key' : f)).join(','),
      });
      return status();
    });
  }

  return { status, bind, unbind, test, certificates };
}

export type HsmService = ReturnType<typeof createHsmService>;
