import { randomBytes, randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import {
  ADMINISTRATOR,
  PRODUCT_VERSION,
  ROOT_DOMAIN,
  ROOT_DOMAIN_DESCRIPTION,
  type api,
  type Input,
} from '@ksp/contracts';
import { FIRST_RUN_SUBJECT, type AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { conflict, forbidden, stateForbids } from '../../platform/errors.js';
import type { Readiness, RequestMeta } from '../../platform/http/route.js';
import type { SealFile } from '../../platform/keyring/keyring.js';
import type { HsmSettings } from '../../platform/keyring/hsm-settings.js';
import {
  RootUnavailable,
  SealFileRoot,
  type RootFailure,
  type RootOfTrust,
} from '../../platform/keyring/root-of-trust.js';
import type { Executor } from '../../platform/db/database.js';
import type { MessageKey } from '@ksp/contracts';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import { Keyring, fingerprint, xorInto } from '../../platform/keyring/keyring.js';
import type { ModuleServices } from '../../platform/module.js';
import type { SetupCode } from './setup-code.js';
import { insertInitializedState, markActivated, setRootWrapping, systemState } from './system.store.js';

const DEFAULT_COMPONENTS = 3;
/** Retries of an HSM that failed at unsealing: 1 s, doubling, at most every 30 s. */
const HSM_RETRY_FIRST_MS = 1000;
const HSM_RETRY_MAX_MS = 30_000;
/**
 * A refused PIN is tried again only every 5 minutes: a real HSM locks its user after a few
 * wrong PINs, and the server must not be what locks it.
 */
const HSM_PIN_RETRY_MS = 300_000;

/** The 5030 reason of each way a root of trust can fail. */
const sealedReason: Record<RootFailure, MessageKey> = {
  'system.sealed': 'system.sealed',
  'hsm.library': 'system.hsmLibrary',
  'hsm.libraryNotAllowed': 'system.hsmLibraryNotAllowed',
  'hsm.tokenAbsent': 'system.hsmTokenAbsent',
  'hsm.pinRefused': 'system.hsmPinRefused',
  'hsm.keyMissing': 'system.hsmKeyMissing',
  'hsm.unwrapFailed': 'system.hsmUnwrapFailed',
  'hsm.failed': 'system.hsmFailed',
  'hsm.pinFile': 'system.hsmPinFile',
};

/**
 * First run. The root key is the XOR of key components generated one by one: each is
 * returned once with its KCV for its custodian, never stored. Only the running XOR is
 * kept, in this process, until `finish` seals the root key with the seal file's key.
 * README.md beside this file explains the invariants.
 */
export function createSystemService(deps: {
  db: Db;
  keyring: Keyring;
  sealFile: SealFile;
  /** The HSM's stored settings, for a root key bound to a PKCS#11 token. */
  hsm: HsmSettings;
  log: { warn(obj: object, msg: string): void };
  clock: Clock;
  audit: AuditWriter;
  users: ModuleServices['users'];
  domains: ModuleServices['domains'];
  roles: ModuleServices['roles'];
  /** The one-time first-run code; `networked` says whether this server needs one. */
  setupCode: SetupCode;
  networked: boolean;
}) {
  const { db, keyring, sealFile, clock, audit, setupCode } = deps;
  let pending: { total: number; generated: number; acc: Buffer } | null = null;
  let readyCache = false;
  const sealRoot = new SealFileRoot(sealFile);
  /** The last HSM failure while sealed: answered again until `retryAt` (clock ms). */
  let hsmFailure: {
    attempts: number;
    retryAt: number;
    answer: Readiness;
    /** The stored PIN that failed: a new one (`ksp hsm-pin`) is tried at once, backoff or not. */
    pinSealed: string | null;
  } | null = null;

  function discardPending(): void {
    pending?.acc.fill(0);
    pending = null;
  }

  /** The root of trust `system_state` says wraps the root key. */
  async function currentRoot(executor: Executor, provider: string): Promise<RootOfTrust> {
    if (provider !== 'pkcs11') return sealRoot;
    const row = await deps.hsm.row(executor);
    if (!row) throw new RootUnavailable('hsm.failed', { detail: 'no HSM settings' });
    return deps.hsm.rootOf(row);
  }

  /**
   * Opens the keyring with the root of trust when the database says the system is
   * initialized. An HSM that fails is tried again on a later call, after a backoff.
   */
  async function unseal(): Promise<Readiness> {
    const state = await systemState(db);
    if (!state?.initialized_at || !state.root_key_wrapped)
      return { ready: false, reason: 'system.notInitialized' };
    if (!keyring.isOpen) {
      const hsmBound = state.root_provider === 'pkcs11';
      const now = clock().getTime();
      if (hsmBound && hsmFailure && now < hsmFailure.retryAt) {
        const row = await deps.hsm.row(db);
        if ((row?.pin_sealed ?? null) === hsmFailure.pinSealed) return hsmFailure.answer;
      }
      try {
        const root = (await currentRoot(db, state.root_provider)).unwrap({
          wrapped: state.root_key_wrapped,
          fingerprint: state.seal_fingerprint,
        });
        keyring.open(root);
        root.fill(0);
        hsmFailure = null;
      } catch (err) {
        if (!(err instanceof RootUnavailable)) throw err;
        const answer: Readiness = { ready: false, reason: sealedReason[err.reason], params: err.params };
        if (hsmBound) {
          const attempts = (hsmFailure?.attempts ?? 0) + 1;
          const delay =
            err.reason === 'hsm.pinRefused'
              ? HSM_PIN_RETRY_MS
              : Math.min(HSM_RETRY_MAX_MS, HSM_RETRY_FIRST_MS * 2 ** (attempts - 1));
          const pinSealed = (await deps.hsm.row(db))?.pin_sealed ?? null;
          hsmFailure = { attempts, retryAt: now + delay, answer, pinSealed };
          deps.log.warn(
            { reason: err.reason, ...err.params },
            'the HSM root of trust cannot be used: sealed',
          );
        }
        return answer;
      }
    }
    if (!state.activated_at) return { ready: false, reason: 'system.notActivated' };
    return { ready: true };
  }

  /**
   * Moves the root key under another root of trust without ever risking it: the new wrapping
   * is made first and must give back the same root key, then `system_state` (and what
   * `persist` writes, in the same transaction) switches to it, and only then does the old root
   * of trust let go of what it held (the seal file). Any failure before the commit changes
   * nothing but removing what the new one made.
   */
  async function rewrapRoot(target: RootOfTrust, persist: (trx: Executor) => Promise<void>): Promise<void> {
    const state = await systemState(db);
    if (!state?.root_key_wrapped || !keyring.isOpen) throw stateForbids('system.notInitialized');
    // Only the kind of the old root of trust matters: it need not work any more (a failing
    // token can still be left for a seal file while the root key is in memory).
    const previous = state.root_provider === 'pkcs11' ? 'pkcs11' : 'seal-file';
    const root = keyring.rootCopy();
    let back: Buffer | null = null;
    let committed = false;
    try {
      const wrapping = target.wrap(root);
      back = target.unwrap(wrapping);
      if (!back.equals(root)) throw stateForbids('hsm.rewrapMismatch');
      await db.transaction().execute(async (trx) => {
        await setRootWrapping(trx, {
          root_key_wrapped: wrapping.wrapped,
          seal_fingerprint: wrapping.fingerprint,
          root_provider: target.kind,
        });
        await persist(trx);
      });
      committed = true;
    } finally {
      root.fill(0);
      back?.fill(0);
      if (!committed && target.kind === 'seal-file') target.retire();
    }
    if (previous === 'seal-file' && target.kind !== 'seal-file') sealRoot.retire();
    hsmFailure = null;
  }

  /** Which root of trust wraps the root key now. */
  async function rootProvider(): Promise<'seal-file' | 'pkcs11'> {
    return (await systemState(db))?.root_provider === 'pkcs11' ? 'pkcs11' : 'seal-file';
  }

  /**
   * At start: on a network address, a system not yet activated gets a new one-time code
   * (returned for the console); otherwise no code is in force and no file is left behind.
   */
  async function prepareSetupCode(): Promise<string | null> {
    if (deps.networked && !(await systemState(db))?.activated_at) return setupCode.issue();
    setupCode.retire();
    return null;
  }

  /** Refuses (4030, audited) a first-run call without the right code while one is in force. */
  async function checkSetupCode(given: string | undefined, action: string, meta: RequestMeta) {
    if (!setupCode.required || setupCode.matches(given)) return;
    await audit.write(db, {
      who: FIRST_RUN_SUBJECT,
      action,
      target: 'setup code',
      result: 'failure',
      ip: meta.ip,
      details: { reason: given ? 'wrong setup code' : 'missing setup code' },
    });
    throw forbidden('system.setupCodeRequired');
  }

  async function readiness(): Promise<Readiness> {
    if (readyCache) return { ready: true };
    const state = await unseal();
    readyCache = state.ready;
    return state;
  }

  async function status() {
    const state = await systemState(db);
    const initialized = Boolean(state?.initialized_at);
    if (initialized) await unseal();
    const sealed = initialized && !keyring.isOpen;
    return {
      initialized,
      activated: Boolean(state?.activated_at),
      sealed,
      version: PRODUCT_VERSION,
      components_generated: pending?.generated ?? 0,
      components_total: pending?.total ?? 0,
      setup_code_required: setupCode.required,
    };
  }

  async function nextComponent(body: Input<typeof api.system.initComponent>, meta: RequestMeta) {
    await checkSetupCode(body.setup_code, 'system.init.component', meta);
    if ((await systemState(db))?.initialized_at) throw conflict('system.alreadyInitialized');
    if (body.restart) discardPending();
    if (pending && pending.generated === pending.total) {
      throw stateForbids('system.componentsDone', { total: pending.total });
    }
    if (!pending) pending = { total: body.total ?? DEFAULT_COMPONENTS, generated: 0, acc: Buffer.alloc(32) };
    const component = randomBytes(32);
    xorInto(pending.acc, component);
    pending.generated += 1;
    const answer = {
      index: pending.generated,
      total: pending.total,
      component: component.toString('hex').toUpperCase(),
      kcv: keyCheckValue('AES-256', component),
    };
    component.fill(0);
    await audit.write(db, {
      who: FIRST_RUN_SUBJECT,
      action: 'system.init.component',
      // Language-neutral: the console names the action, the target says which component.
      target: `${answer.index}/${answer.total}`,
      result: 'success',
      ip: meta.ip,
      details: { kcv: answer.kcv },
    });
    return answer;
  }

  async function finish(body: Input<typeof api.system.initFinish>, meta: RequestMeta) {
    await checkSetupCode(body?.setup_code, 'system.init.finish', meta);
    if ((await systemState(db))?.initialized_at) throw conflict('system.alreadyInitialized');
    if (!pending) throw stateForbids('system.noInitInProgress');
    if (pending.generated < pending.total) {
      throw stateForbids('system.componentsPending', { done: pending.generated, total: pending.total });
    }
    const root = Buffer.from(pending.acc);
    const rootKcv = keyCheckValue('AES-256', root);
    if (sealFile.exists()) unlinkSync(sealFile.path); // a leftover of an install whose database was dropped
    const sealKey = sealFile.create();
    try {
      const now = clock().toISOString();
      keyring.open(root);
      await db.transaction().execute(async (trx) => {
        const inserted = await insertInitializedState(trx, {
          initialized_at: now,
          root_key_wrapped: Keyring.wrapRoot(sealKey, root),
          root_kcv: rootKcv,
          seal_fingerprint: fingerprint(sealKey),
        });
        if (!inserted) throw conflict('system.alreadyInitialized');
        const domainId = randomUUID();
        await deps.domains.insertDomain(trx, {
          id: domainId,
          name: ROOT_DOMAIN,
          description: ROOT_DOMAIN_DESCRIPTION,
          parent_id: null,
          kek_wrapped: keyring.newDomainKek(domainId),
          created_at: now,
        });
        await audit.write(trx, {
          who: FIRST_RUN_SUBJECT,
          action: 'system.init.finish',
          target: `KCV ${rootKcv}`,
          result: 'success',
          ip: meta.ip,
          details: { kcv: rootKcv, components: pending?.total ?? 0 },
        });
      });
    } catch (err) {
      keyring.close();
      unlinkSync(sealFile.path);
      throw err;
    } finally {
      root.fill(0);
      sealKey.fill(0);
    }
    discardPending();
    return { kcv: rootKcv, seal_file: sealFile.path };
  }

  async function activate(body: Input<typeof api.system.activate>, meta: RequestMeta) {
    await checkSetupCode(body.setup_code, 'system.activate', meta);
    const state = await unseal();
    if (!state.ready && state.reason !== 'system.notActivated')
      throw stateForbids(state.reason, state.params);
    if (state.ready) throw conflict('system.alreadyActivated');
    await deps.users.assertPasswordAllowed(body.password, meta.lang);
    const rootDomain = await deps.domains.findDomainByName(db, ROOT_DOMAIN);
    if (!rootDomain) throw new Error('The root domain is missing');
    const adminRole = await deps.roles.roleIdByName(db, ADMINISTRATOR);
    if (!adminRole) throw new Error('Built-in roles are missing');
    await db.transaction().execute(async (trx) => {
      if (!(await markActivated(trx, clock().toISOString()))) throw conflict('system.alreadyActivated');
      const userId = await deps.users.createLocalUser(trx, {
        username: body.username,
        password: body.password,
        email: body.email,
        domainIds: [rootDomain.id],
        roleIds: [adminRole],
      });
      await audit.write(trx, {
        who: { userId, username: body.username, domainId: rootDomain.id, domainName: rootDomain.name },
        action: 'system.activate',
        target: body.username,
        result: 'success',
        ip: meta.ip,
      });
    });
    readyCache = false;
    setupCode.retire();
    return { username: body.username };
  }

  return {
    readiness,
    status,
    nextComponent,
    finish,
    activate,
    unseal,
    prepareSetupCode,
    rewrapRoot,
    rootProvider,
    /** The seal file as a root of trust (what unbinding an HSM goes back to). */
    sealRoot,
    sealFilePath: sealFile.path,
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
