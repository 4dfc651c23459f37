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
import { SYSTEM_SUBJECT, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import { conflict, forbidden, stateForbids } from '../../platform/errors.js';
import type { Readiness, RequestMeta } from '../../platform/http/route.js';
import type { SealFile } from '../../platform/keyring/keyring.js';
import { keyCheckValue } from '../../platform/crypto/symmetric.js';
import { Keyring, fingerprint, xorInto } from '../../platform/keyring/keyring.js';
import type { ModuleServices } from '../../platform/module.js';
import type { SetupCode } from './setup-code.js';
import { insertInitializedState, markActivated, systemState } from './system.store.js';

const DEFAULT_COMPONENTS = 3;

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
  clock: Clock;
  users: ModuleServices['users'];
  domains: ModuleServices['domains'];
  roles: ModuleServices['roles'];
  /** The one-time first-run code; `networked` says whether this server needs one. */
  setupCode: SetupCode;
  networked: boolean;
}) {
  const { db, keyring, sealFile, clock, setupCode } = deps;
  let pending: { total: number; generated: number; acc: Buffer } | null = null;
  let readyCache = false;

  function discardPending(): void {
    pending?.acc.fill(0);
    pending = null;
  }

  /** Opens the keyring from the seal file when the database says the system is initialized. */
  async function unseal(): Promise<Readiness> {
    const state = await systemState(db);
    if (!state?.initialized_at || !state.root_key_wrapped)
      return { ready: false, reason: 'system.notInitialized' };
    if (!keyring.isOpen) {
      const sealKey = sealFile.read();
      if (!sealKey || fingerprint(sealKey) !== state.seal_fingerprint) {
        return { ready: false, reason: 'system.sealed', params: { file: sealFile.path } };
      }
      const root = Keyring.unwrapRoot(sealKey, state.root_key_wrapped);
      keyring.open(root);
      root.fill(0);
    }
    if (!state.activated_at) return { ready: false, reason: 'system.notActivated' };
    return { ready: true };
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
    await writeAudit(db, {
      who: SYSTEM_SUBJECT,
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
    await writeAudit(db, {
      who: SYSTEM_SUBJECT,
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
        await writeAudit(trx, {
          who: SYSTEM_SUBJECT,
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
    const rootDomain = await db
      .selectFrom('domain')
      .select(['id', 'name'])
      .where('name', '=', ROOT_DOMAIN)
      .executeTakeFirstOrThrow();
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
      await writeAudit(trx, {
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

  return { readiness, status, nextComponent, finish, activate, unseal, prepareSetupCode };
}

export type SystemService = ReturnType<typeof createSystemService>;
