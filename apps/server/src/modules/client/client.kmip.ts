import { randomUUID } from 'node:crypto';
import {
  effectivePermissions,
  type api,
  type Input,
  type KmipClientRow,
  type QueryInput,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  certificateColumns,
  findClient,
  findKmipClientByCertificate,
  insertClient,
  kmipClientNamed,
  listKmipClients,
  updateClient,
} from './client.store.js';
import { certificateView } from './client.view.js';

/** A KMIP client as the console shows it. */
export function kmipClientView(row: ClientTable, roleName: string): KmipClientRow {
  const revoked = row.state !== 'active';
  return {
    id: row.id,
    name: row.name,
    role_id: row.role_id,
    role_name: roleName,
    state: revoked ? 'revoked' : row.communication_enabled ? 'active' : 'disabled',
    last_seen_at: row.last_seen_at === row.registered_at ? null : row.last_seen_at,
    registered_at: row.registered_at,
    certificate: certificateView(row, revoked),
  };
}

/** Who a KMIP connection is: the client, its domain and what its role lets it do; or why not. */
export type KmipIdentity =
  | { ok: true; client: ClientTable; domainName: string; permissions: Set<string> }
  | {
      ok: false;
      /** certificate: unreadable; unknownCa, certValidity, revoked, notClient: the certificate check; unknownClient: no KMIP client holds it; disabled. */
      reason:
        | 'certificate'
        | 'unknownCa'
        | 'certValidity'
        | 'revoked'
        | 'notClient'
        | 'unknownClient'
        | 'disabled'
        | 'noRole';
      client?: Pick<ClientTable, 'id' | 'name' | 'domain_id'>;
      serial?: string;
      domainId?: string;
    };

/**
 * KMIP clients (docs/kmip.md): clients of type `kmip` with a role, made in the console from a
 * CSR (or enrolled with a registration token of usage `kmip`), and the identification of a
 * KMIP connection by the certificate it presented.
 */
export function createKmipClients(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  certs: () => ModuleServices['certs'];
  license: () => ModuleServices['license'];
  roles: () => ModuleServices['roles'];
  domains: () => ModuleServices['domains'];
}) {
  const { db, clock, audit } = deps;

  async function find(actor: Actor, id: string) {
    const row = await findClient(db, actor.domainId, id, 'kmip');
    if (!row) throw notFound('client.notFound', { id });
    return row;
  }

  /** The role, when it is one a client of `domainId` may hold (built-in, or that domain's own). */
  async function roleOf(domainId: string, roleId: string) {
    const [role] = await deps.roles().findRoles(db, [roleId]);
    if (!role || (role.domain_id !== null && role.domain_id !== domainId))
      throw invalid('kmip.roleNotInDomain', { id: roleId });
    return role;
  }

  async function roleNames(ids: (string | null)[]) {
    const wanted = [...new Set(ids.filter((id): id is string => !!id))];
    const roles = wanted.length ? await deps.roles().findRoles(db, wanted) : [];
    return new Map(roles.map((r) => [r.id, r.name]));
  }

  const view = async (row: ClientTable) =>
    kmipClientView(row, (await roleNames([row.role_id])).get(row.role_id ?? '') ?? '');

  /** The certificate for a new or renewed client, signed now, stored by the caller's transaction. */
  const prepare = (domainId: string, from: { csr: string; ip: string } | { renew: string }, days: number) =>
    deps
      .certs()
      .prepareClientCertificate(
        domainId,
        'csr' in from ? { csr: from.csr, ip: from.ip, action: 'kmip.client.certificate' } : from,
        days,
      );

  const issuedAnswer = async (row: ClientTable, issued: { certificatePem: string; chainPem: string[] }) => ({
    client: await view(row),
    certificate_pem: issued.certificatePem,
    chain_pem: issued.chainPem.join(''),
    pkcs12: null as string | null,
  });

  return {
    async list(actor: Actor, query: QueryInput<typeof api.kmip.list>) {
      const page = await listKmipClients(db, actor.domainId, query.name, query);
      const names = await roleNames(page.rows.map((row) => row.role_id));
      return {
        data: page.rows.map((row) => kmipClientView(row, names.get(row.role_id ?? '') ?? '')),
        total: page.total,
      };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.kmip.create>) {
      await roleOf(actor.domainId, body.role_id);
      if (await kmipClientNamed(db, actor.domainId, body.name))
        throw conflict('kmip.clientExists', { name: body.name });
      await deps.license().checkQuota('kmip_clients', 1);
      const issued = body.csr
        ? {
            ...(await prepare(actor.domainId, { csr: body.csr, ip: meta.ip }, body.validity_days)),
            pkcs12: null,
          }
        : await deps
            .certs()
            .prepareGeneratedClientCertificate(
              actor.domainId,
              { cn: body.name, algorithm: body.key_algorithm, password: body.pkcs12_password ?? '' },
              body.validity_days,
            );
      const at = clock().toISOString();
      const row: ClientTable = {
        id: randomUUID(),
        domain_id: actor.domainId,
        name: body.name,
        type: 'kmip',
        os: '',
        agent_version: '',
        mac: '',
        host: '',
        state: 'active',
        profile: null,
        groups: '[]',
        token_id: null,
        token_name: '',
        cert_validity_days: body.validity_days,
        ...certificateColumns(issued),
        last_request_ms: 0,
        communication_enabled: 1,
        client_locked: 0,
        role_id: body.role_id,
        last_seen_at: at,
        registered_at: at,
        updated_at: at,
      };
      await db.transaction().execute(async (trx) => {
        await deps.license().claimOne(trx, 'kmip_clients', 1);
        await issued.store(trx);
        await insertClient(trx, row);
        await audit.byCaller(trx, actor, meta, {
          action: 'kmip.client.create',
          target: row.name,
          objectId: row.id,
          details: {
            role: body.role_id,
            serial: issued.serial,
            ca: issued.ca.name,
            key: body.csr ? 'csr' : `made by KSP (${body.key_algorithm}), answered in PKCS#12`,
          },
        });
      });
      return { ...(await issuedAnswer(row, issued)), pkcs12: issued.pkcs12?.toString('base64') ?? null };
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.kmip.update>) {
      if (body.role_id === undefined && body.enabled === undefined) throw invalid('kmip.nothingToChange');
      const row = await find(actor, body.id);
      if (row.state !== 'active') throw stateForbids('client.revoked', { name: row.name });
      const changes: Partial<ClientTable> = { updated_at: clock().toISOString() };
      if (body.role_id !== undefined) changes.role_id = (await roleOf(actor.domainId, body.role_id)).id;
      if (body.enabled !== undefined) changes.communication_enabled = body.enabled ? 1 : 0;
      await db.transaction().execute(async (trx) => {
        await updateClient(trx, row.id, changes);
        await audit.byCaller(trx, actor, meta, {
          action: 'kmip.client.update',
          target: row.name,
          objectId: row.id,
          details: {
            ...(body.role_id !== undefined ? { role: body.role_id } : {}),
            ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
          },
        });
      });
      return view({ ...row, ...changes });
    },

    async renew(actor: Actor, meta: RequestMeta, body: Input<typeof api.kmip.renew>) {
      const row = await find(actor, body.id);
      if (row.state !== 'active') throw stateForbids('client.revoked', { name: row.name });
      const issued = await prepare(
        row.domain_id,
        body.csr ? { csr: body.csr, ip: meta.ip } : { renew: row.cert_id },
        row.cert_validity_days,
      );
      const changes = { ...certificateColumns(issued), updated_at: clock().toISOString() };
      await db.transaction().execute(async (trx) => {
        await issued.store(trx);
        await updateClient(trx, row.id, changes);
        await audit.byCaller(trx, actor, meta, {
          action: 'kmip.client.renew',
          target: row.name,
          objectId: row.id,
          details: { serial: issued.serial, previous: row.cert_serial, new_key: !!body.csr },
        });
      });
      await deps.certs().revokeClientCertificate(row.domain_id, row.cert_id, 'superseded');
      return issuedAnswer({ ...row, ...changes }, issued);
    },

    /**
     * Who presents this certificate: a KMIP client of the certificate's domain that is active,
     * with its role's permissions (none without a role; the root domain's system-wide areas are
     * never a client's). Nothing is written.
     */
    async identify(der: Buffer): Promise<KmipIdentity> {
      const checked = await deps.certs().checkClientCertificate(der);
      if (!checked.ok)
        return 'ca' in checked
          ? { ok: false, reason: checked.reason, serial: checked.serial, domainId: checked.ca.domainId }
          : { ok: false, reason: checked.reason };
      const client = await findKmipClientByCertificate(db, checked.ca.domainId, checked.serial);
      if (!client)
        return { ok: false, reason: 'unknownClient', serial: checked.serial, domainId: checked.ca.domainId };
      const known = { client, serial: checked.serial, domainId: client.domain_id };
      if (client.state !== 'active') return { ok: false, reason: 'revoked', ...known };
      if (!client.communication_enabled) return { ok: false, reason: 'disabled', ...known };
      // Enrolled with a registration token: nothing until an administrator gives it a role.
      if (!client.role_id) return { ok: false, reason: 'noRole', ...known };
      const held = await deps.roles().rolePermissionsOf(db, client.role_id);
      const domain = await deps.domains().findDomainById(db, client.domain_id);
      return {
        ok: true,
        client,
        domainName: domain?.name ?? '',
        permissions: effectivePermissions(held ?? [], false),
      };
    },

    /** Records that clients made KMIP requests (their last-seen time), at most once a minute each. */
    async seen(ids: string[], at: string) {
      for (const id of ids) await updateClient(db, id, { last_seen_at: at });
    },
  };
}

export type KmipClients = ReturnType<typeof createKmipClients>;
