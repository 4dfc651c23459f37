import { randomUUID } from 'node:crypto';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { escapeLike, type Db } from '../../platform/db/database.js';
import type { LdapConnectionTable } from '../../platform/db/schema.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { SecretBox } from '../../platform/keyring/secret-box.js';
import { ROOT_DOMAIN, addMember, findDomainByName } from '../domain/domain.store.js';
import { findRoles, setUserRoles } from '../role/role.store.js';
import { findUserByName, insertUser, updateUser } from '../user/user.store.js';
import { runDirectorySteps, type DirectorySettings } from './ldap.client.js';

export interface LdapFieldsInput {
  name: string;
  url: string;
  bind_dn: string;
  bind_password: string;
  user_base_dn: string;
  username_attribute: string;
  user_dn_attribute: string;
  unique_id_attribute: string;
  user_filter: string;
  group_base_dn: string;
  group_filter: string;
  group_id_attribute: string;
  group_member_attribute: string;
  ca_certificate: string;
  verify_certificate: boolean;
  group_roles: { group: string; role_id: string }[];
}

const owner = (id: string) => `ldap/${id}`;

function view(row: LdapConnectionTable) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    bind_dn: row.bind_dn,
    has_bind_password: Boolean(row.bind_password_wrapped),
    user_base_dn: row.user_base_dn,
    username_attribute: row.username_attribute,
    user_dn_attribute: row.user_dn_attribute,
    unique_id_attribute: row.unique_id_attribute,
    user_filter: row.user_filter,
    group_base_dn: row.group_base_dn,
    group_filter: row.group_filter,
    group_id_attribute: row.group_id_attribute,
    group_member_attribute: row.group_member_attribute,
    ca_certificate: row.ca_certificate,
    verify_certificate: row.verify_certificate === 1,
    group_roles: JSON.parse(row.group_roles) as { group: string; role_id: string }[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * LDAP connections (kept in the root domain, as the field's leading products do) and
 * directory sign-in: `<connection>/<user>` binds to that directory, and the user's
 * directory groups give its roles at every sign-in.
 */
export function createLdapService(deps: { db: Db; clock: Clock; secrets: SecretBox }) {
  const { db, clock, secrets } = deps;

  async function rootDomainId(): Promise<string> {
    const root = await findDomainByName(db, ROOT_DOMAIN);
    if (!root) throw new Error('root domain missing');
    return root.id;
  }

  async function find(id: string) {
    const row = await db.selectFrom('ldap_connection').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('ldap.notFound', { id });
    return row;
  }

  async function settingsOf(
    row: LdapConnectionTable,
    overrides: Partial<LdapFieldsInput> = {},
  ): Promise<DirectorySettings> {
    const stored = row.bind_password_wrapped
      ? await secrets.open(await rootDomainId(), owner(row.id), row.bind_password_wrapped)
      : '';
    const v = view(row);
    return {
      url: overrides.url ?? v.url,
      bind_dn: overrides.bind_dn ?? v.bind_dn,
      bind_password: overrides.bind_password ? overrides.bind_password : stored,
      user_base_dn: overrides.user_base_dn ?? v.user_base_dn,
      username_attribute: overrides.username_attribute ?? v.username_attribute,
      user_dn_attribute: overrides.user_dn_attribute ?? v.user_dn_attribute,
      user_filter: overrides.user_filter ?? v.user_filter,
      group_base_dn: overrides.group_base_dn ?? v.group_base_dn,
      group_filter: overrides.group_filter ?? v.group_filter,
      group_id_attribute: overrides.group_id_attribute ?? v.group_id_attribute,
      group_member_attribute: overrides.group_member_attribute ?? v.group_member_attribute,
      ca_certificate: overrides.ca_certificate ?? v.ca_certificate,
      verify_certificate: overrides.verify_certificate ?? v.verify_certificate,
    };
  }

  async function checkRoles(map: { role_id: string }[]) {
    const ids = [...new Set(map.map((m) => m.role_id))];
    const found = await findRoles(db, ids);
    const missing = ids.find((id) => !found.some((r) => r.id === id));
    if (missing) throw notFound('role.notFound', { id: missing });
  }

  return {
    async list(query: { page: number; page_size: number; name?: string | undefined }) {
      let q = db.selectFrom('ldap_connection');
      if (query.name) q = q.where('name', 'like', `%${escapeLike(query.name)}%`);
      const total = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await q
        .selectAll()
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      return { data: rows.map(view), total: Number(total?.n ?? 0) };
    },

    async create(actor: Actor, meta: RequestMeta, body: LdapFieldsInput) {
      if (
        await db.selectFrom('ldap_connection').select('id').where('name', '=', body.name).executeTakeFirst()
      ) {
        throw conflict('ldap.nameTaken', { name: body.name });
      }
      await checkRoles(body.group_roles);
      const id = randomUUID();
      const now = clock().toISOString();
      const wrapped = body.bind_password
        ? await secrets.seal(await rootDomainId(), owner(id), body.bind_password)
        : null;
      const { bind_password: _secret, ...fields } = body;
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('ldap_connection')
          .values({
            ...fields,
            id,
            bind_password_wrapped: wrapped,
            verify_certificate: body.verify_certificate ? 1 : 0,
            group_roles: JSON.stringify(body.group_roles),
            created_at: now,
            updated_at: now,
          })
          .execute();
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'ldap.create',
          target: body.name,
          result: 'success',
          ip: meta.ip,
        });
      });
      return view(await find(id));
    },

    async update(actor: Actor, meta: RequestMeta, body: Partial<LdapFieldsInput> & { id: string }) {
      const row = await find(body.id);
      if (body.name && body.name !== row.name) {
        if (
          await db.selectFrom('ldap_connection').select('id').where('name', '=', body.name).executeTakeFirst()
        ) {
          throw conflict('ldap.nameTaken', { name: body.name });
        }
      }
      if (body.group_roles) await checkRoles(body.group_roles);
      const { id, bind_password, verify_certificate, group_roles, ...fields } = body;
      const wrapped = bind_password
        ? await secrets.seal(await rootDomainId(), owner(id), bind_password)
        : undefined;
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('ldap_connection')
          .set({
            ...fields,
            ...(wrapped ? { bind_password_wrapped: wrapped } : {}),
            ...(verify_certificate !== undefined ? { verify_certificate: verify_certificate ? 1 : 0 } : {}),
            ...(group_roles ? { group_roles: JSON.stringify(group_roles) } : {}),
            updated_at: clock().toISOString(),
          })
          .where('id', '=', id)
          .execute();
        await writeAudit(trx, {
          who: subjectOf(actor),
          action: 'ldap.update',
          target: body.name ?? row.name,
          result: 'success',
          ip: meta.ip,
        });
      });
      return view(await find(id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows: LdapConnectionTable[] = [];
      for (const id of ids) rows.push(await find(id));
      return db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('ldap_connection').where('id', 'in', ids).executeTakeFirst();
        for (const r of rows)
          await writeAudit(trx, {
            who: subjectOf(actor),
            action: 'ldap.delete',
            target: r.name,
            result: 'success',
            ip: meta.ip,
          });
        return { deleted: Number(result.numDeletedRows) };
      });
    },

    async test(
      actor: Actor,
      meta: RequestMeta,
      body: Partial<LdapFieldsInput> & {
        id?: string | undefined;
        test_username: string;
        test_password: string;
      },
    ) {
      const { id, test_username, test_password, ...overrides } = body;
      const base: LdapConnectionTable = id
        ? await find(id)
        : {
            id: 'unsaved',
            name: overrides.name ?? 'unsaved',
            url: overrides.url ?? '',
            bind_dn: '',
            bind_password_wrapped: null,
            user_base_dn: overrides.user_base_dn ?? '',
            username_attribute: 'uid',
            user_dn_attribute: 'dn',
            unique_id_attribute: 'entryUUID',
            user_filter: '(objectClass=person)',
            group_base_dn: '',
            group_filter: '(objectClass=groupOfNames)',
            group_id_attribute: 'cn',
            group_member_attribute: 'member',
            ca_certificate: '',
            verify_certificate: 1,
            group_roles: '[]',
            created_at: '',
            updated_at: '',
          };
      const result = await runDirectorySteps(await settingsOf(base, overrides), test_username, test_password);
      const ok = result.steps.every((s) => s.ok) && result.steps.length === 5;
      await writeAudit(db, {
        who: subjectOf(actor),
        action: 'ldap.test',
        target: base.name,
        result: ok ? 'success' : 'failure',
        ip: meta.ip,
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
      const row = await db
        .selectFrom('ldap_connection')
        .selectAll()
        .where('name', '=', connectionName)
        .executeTakeFirst();
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
      const localName = `${row.name}/${username}`;
      const now = clock().toISOString();
      const rootId = await rootDomainId();
      const userId = await db.transaction().execute(async (trx) => {
        const existing = await findUserByName(trx, localName);
        const userId = existing?.id ?? randomUUID();
        if (!existing) {
          await insertUser(trx, {
            id: userId,
            username: localName,
            email: '',
            phone: '',
            password_hash: null,
            directory: row.name,
            must_change_password: 0,
            password_changed_at: null,
            last_login_at: null,
            login_count: 0,
            last_failed_login_at: null,
            failed_login_count: 0,
            locked_until: null,
            ip_whitelist: '[]',
            app_secret_hash: null,
            app_role_id: null,
            ukey_serial: null,
            ukey_cert: null,
            created_at: now,
            updated_at: now,
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
