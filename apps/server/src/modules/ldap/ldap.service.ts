import { directoryUsername, newLdapFields, ROOT_DOMAIN, type LdapFieldValues } from '@ksp/contracts';
import { randomUUID } from 'node:crypto';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { LdapConnectionTable } from '../../platform/db/schema.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { SecretBox } from '../../platform/keyring/secret-box.js';
import type { ModuleServices } from '../../platform/module.js';
import { runDirectorySteps, type DirectorySettings } from './ldap.client.js';
import {
  deleteConnections,
  findConnection,
  findConnectionByName,
  insertConnection,
  listConnections,
  updateConnection,
} from './ldap.store.js';

const owner = (id: string) => `ldap/${id}`;

function view(row: LdapConnectionTable) {
  const { bind_password_wrapped, verify_certificate, group_roles, ...fields } = row;
  return {
    ...fields,
    has_bind_password: Boolean(bind_password_wrapped),
    verify_certificate: verify_certificate === 1,
    group_roles: JSON.parse(group_roles) as LdapFieldValues['group_roles'],
  };
}

/** The fields given, without those left out (an absent field keeps its stored value). */
function given<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * LDAP connections (kept in the root domain, as the field's leading products do) and
 * directory sign-in: `<connection>/<user>` binds to that directory, and the user's
 * directory groups give its roles at every sign-in.
 */
export function createLdapService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  secrets: SecretBox;
  domains: ModuleServices['domains'];
  roles: ModuleServices['roles'];
  /** The user module's records, asked for at call time (that module signs in through this one). */
  userRecords: () => ModuleServices['userRecords'];
}) {
  const { db, clock, audit, secrets } = deps;
  const { addMember, findDomainByName } = deps.domains;
  const { findRoles, setUserRoles } = deps.roles;

  async function rootDomainId(): Promise<string> {
    const root = await findDomainByName(db, ROOT_DOMAIN);
    if (!root) throw new Error('root domain missing');
    return root.id;
  }

  async function find(id: string) {
    const row = await findConnection(db, id);
    if (!row) throw notFound('ldap.notFound', { id });
    return row;
  }

  /** The settings of a stored connection (null: a new one, with the contract's defaults), changed by `overrides`. */
  async function settingsOf(
    row: LdapConnectionTable | null,
    overrides: Partial<LdapFieldValues> = {},
  ): Promise<DirectorySettings> {
    const stored = row?.bind_password_wrapped
      ? await secrets.open(await rootDomainId(), owner(row.id), row.bind_password_wrapped)
      : '';
    return {
      ...(row ? view(row) : newLdapFields()),
      ...given(overrides),
      bind_password: overrides.bind_password ? overrides.bind_password : stored,
    };
  }

  async function nameFree(name: string) {
    if (await findConnectionByName(db, name)) throw conflict('ldap.nameTaken', { name });
  }

  async function checkRoles(map: { role_id: string }[]) {
    const ids = [...new Set(map.map((m) => m.role_id))];
    const found = await findRoles(db, ids);
    const missing = ids.find((id) => !found.some((r) => r.id === id));
    if (missing) throw notFound('role.notFound', { id: missing });
  }

  return {
    async list(query: { page: number; page_size: number; name?: string | undefined }) {
      const { rows, total } = await listConnections(db, query, query);
      return { data: rows.map(view), total };
    },

    async create(actor: Actor, meta: RequestMeta, body: LdapFieldValues) {
      await nameFree(body.name);
      await checkRoles(body.group_roles);
      const id = randomUUID();
      const now = clock().toISOString();
      const wrapped = body.bind_password
        ? await secrets.seal(await rootDomainId(), owner(id), body.bind_password)
        : null;
      const { bind_password: _secret, ...fields } = body;
      await db.transaction().execute(async (trx) => {
        await insertConnection(trx, {
          ...fields,
          id,
          bind_password_wrapped: wrapped,
          verify_certificate: body.verify_certificate ? 1 : 0,
          group_roles: JSON.stringify(body.group_roles),
          created_at: now,
          updated_at: now,
        });
        await audit.byCaller(trx, actor, meta, { action: 'ldap.create', target: body.name });
      });
      return view(await find(id));
    },

    async update(actor: Actor, meta: RequestMeta, body: Partial<LdapFieldValues> & { id: string }) {
      const row = await find(body.id);
      if (body.name && body.name !== row.name) await nameFree(body.name);
      if (body.group_roles) await checkRoles(body.group_roles);
      const { id, bind_password, verify_certificate, group_roles, ...fields } = body;
      const wrapped = bind_password
        ? await secrets.seal(await rootDomainId(), owner(id), bind_password)
        : undefined;
      await db.transaction().execute(async (trx) => {
        await updateConnection(trx, id, {
          ...fields,
          ...(wrapped ? { bind_password_wrapped: wrapped } : {}),
          ...(verify_certificate !== undefined ? { verify_certificate: verify_certificate ? 1 : 0 } : {}),
          ...(group_roles ? { group_roles: JSON.stringify(group_roles) } : {}),
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(trx, actor, meta, { action: 'ldap.update', target: body.name ?? row.name });
      });
      return view(await find(id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: LdapConnectionTable[] = [];
      for (const id of ids) rows.push(await find(id));
      return db.transaction().execute(async (trx) => {
        const deleted = await deleteConnections(trx, ids);
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, { action: 'ldap.delete', target: r.name });
        return { deleted };
      });
    },

    async test(
      actor: Actor,
      meta: RequestMeta,
      body: Partial<LdapFieldValues> & {
        id?: string | undefined;
        test_username: string;
        test_password: string;
      },
    ) {
      const { id, test_username, test_password, ...overrides } = body;
      const row = id ? await find(id) : null;
      const result = await runDirectorySteps(await settingsOf(row, overrides), test_username, test_password);
      const ok = result.steps.every((s) => s.ok) && result.steps.length === 5;
      await audit.byCaller(db, actor, meta, {
        action: 'ldap.test',
        target: row?.name ?? overrides.name ?? 'unsaved',
        result: ok ? 'success' : 'failure',
        details: { failed_step: result.steps.find((s) => !s.ok)?.step ?? null },
      });
      return { ok, steps: result.steps, groups: result.groups };
    },

    /**
     * Directory sign-in: binds as the user, then creates or refreshes the local record
     * `<connection>/<user>` with the roles its groups map to. Returns null when refused.
     */
    async authenticate(
      connectionName: string,
      username: string,
      password: string,
    ): Promise<{ userId: string } | { refused: string }> {
      const row = await findConnectionByName(db, connectionName);
      if (!row) return { refused: 'unknown directory' };
      const result = await runDirectorySteps(await settingsOf(row), username, password);
      const failed = result.steps.find((s) => !s.ok);
      if (failed || !result.userDn)
        return { refused: `directory step ${failed?.step ?? 'find-user'} failed` };
      const mapping = view(row).group_roles;
      const roleIds = [
        ...new Set(mapping.filter((m) => result.groups.includes(m.group)).map((m) => m.role_id)),
      ];
      if (roleIds.length === 0) return { refused: 'no directory group maps to a role' };
      const localName = directoryUsername(row.name, username);
      const now = clock().toISOString();
      const rootId = await rootDomainId();
      const { findUserByName, insertUser, updateUser } = deps.userRecords();
      const userId = await db.transaction().execute(async (trx) => {
        const existing = await findUserByName(trx, localName);
        const userId = existing?.id ?? randomUUID();
        if (!existing) {
          await insertUser(trx, {
            id: userId,
            username: localName,
            email: '',
            password_hash: null,
            directory: row.name,
            password_changed_at: null,
            at: now,
          });
          await addMember(trx, userId, rootId);
        } else {
          await updateUser(trx, userId, { updated_at: now });
        }
        await setUserRoles(trx, userId, roleIds);
        return userId;
      });
      return { userId };
    },
  };
}

export type LdapService = ReturnType<typeof createLdapService>;
