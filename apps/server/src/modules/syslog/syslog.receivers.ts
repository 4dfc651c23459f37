import { v7 as uuidv7 } from 'uuid';
import {
  SYSLOG_DEFAULT_PORTS,
  type Input,
  type QueryInput,
  type SyslogFormat,
  type SyslogProtocol,
  type SyslogServer,
  type api,
} from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db } from '../../platform/db/database.js';
import type { SyslogServerTable } from '../../platform/db/schema.js';
import { conflict, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { SecretBox } from '../../platform/keyring/secret-box.js';
import type { ModuleServices } from '../../platform/module.js';
import { formatMessage, type SyslogEvent } from './syslog.format.js';
import { CLIENT_CHAIN, receiverOf, streamsOf } from './syslog.forward.js';
import { checkSettings } from './syslog.settings.js';
import {
  chainHeads,
  deleteServers,
  findServer,
  insertPosition,
  insertServer,
  movePosition,
  pageOfServers,
  positionsOf,
  serversIn,
  updateServer,
} from './syslog.store.js';
import { deliver } from './syslog.transport.js';

/**
 * Syslog receivers as the calls see them (docs/modules.md#syslog-forwarding): list with each
 * one's lag, create (from the chains' heads on), change, delete, and a test event.
 */
export function createSyslogReceivers(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  secrets: SecretBox;
  nodeName: string;
  clientLogs?: (() => ModuleServices['clientLogs']) | undefined;
}) {
  const { db, clock, audit } = deps;
  const now = () => clock().toISOString();

  /** Records not yet delivered to a receiver, over every chain and the client stream. */
  async function lagOf(serverId: string): Promise<number> {
    const heads = await chainHeads(db);
    const positions = new Map((await positionsOf(db, serverId)).map((p) => [p.chain, Number(p.seq)]));
    const serverLag = heads.reduce(
      (sum, h) => sum + Math.max(0, Number(h.seq) - (positions.get(h.chain) ?? 0)),
      0,
    );
    const clientPosition = positions.get(CLIENT_CHAIN);
    const clientLag =
      deps.clientLogs && clientPosition !== undefined
        ? Math.max(0, (await deps.clientLogs().lastSeq()) - clientPosition)
        : 0;
    return serverLag + clientLag;
  }

  async function view(row: SyslogServerTable): Promise<SyslogServer> {
    return {
      id: row.id,
      name: row.name,
      host: row.host,
      port: row.port,
      protocol: row.protocol as SyslogProtocol,
      format: row.format as SyslogFormat,
      streams: streamsOf(row),
      enabled: row.enabled === 1,
      ca_cert: row.ca_cert,
      client_cert: row.client_cert,
      has_client_key: row.client_key !== null,
      lag: await lagOf(row.id),
      sent: Number(row.sent),
      last_sent_at: row.last_sent_at,
      last_error: row.last_error,
      last_error_at: row.last_error_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  const find = async (id: string) => {
    const row = await findServer(db, id);
    if (!row) throw notFound('syslog.notFound', { id });
    return row;
  };

  /** A receiver's name already in use (a unique violation) answered as 4090 naming it. */
  const nameTaken = (name: string) => (err: unknown) => {
    throw isUniqueViolation(err) ? conflict('syslog.nameTaken', { name }) : err;
  };

  return {
    async list(query: QueryInput<typeof api.syslog.list>) {
      const { rows, total } = await pageOfServers(db, query);
      return { data: await Promise.all(rows.map(view)), total };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.syslog.create>) {
      const next = {
        host: body.host,
        protocol: body.protocol,
        ca_cert: body.ca_cert || null,
        client_cert: body.client_cert || null,
        client_key: body.client_key || null,
      };
      await checkSettings(next);
      const id = uuidv7();
      const at = now();
      const row: SyslogServerTable = {
        id,
        name: body.name,
        host: body.host,
        port: body.port ?? SYSLOG_DEFAULT_PORTS[body.protocol],
        protocol: body.protocol,
        format: body.format,
        streams: JSON.stringify([...new Set(body.streams)]),
        enabled: body.enabled ? 1 : 0,
        ca_cert: next.ca_cert,
        client_cert: next.client_cert,
        client_key: next.client_key ? await deps.secrets.seal(actor.domainId, id, next.client_key) : null,
        key_domain: next.client_key ? actor.domainId : null,
        sent: 0,
        failures: 0,
        last_sent_at: null,
        last_error: null,
        last_error_at: null,
        created_at: at,
        updated_at: at,
      };
      // Read before the transaction: on SQLite it holds the only connection.
      const clientHead = deps.clientLogs ? await deps.clientLogs().lastSeq() : null;
      await db
        .transaction()
        .execute(async (trx) => {
          await insertServer(trx, row);
          // It gets the records written from now on: every chain starts at its head.
          for (const h of await chainHeads(trx)) await insertPosition(trx, id, h.chain, Number(h.seq));
          if (clientHead !== null) await insertPosition(trx, id, CLIENT_CHAIN, clientHead);
          await audit.byCaller(trx, actor, meta, {
            action: 'syslog.create',
            target: body.name,
            details: { host: row.host, port: row.port, protocol: row.protocol, format: row.format },
          });
        })
        .catch(nameTaken(body.name));
      return view(row);
    },

    async update(actor: Actor, meta: RequestMeta, body: Input<typeof api.syslog.update>) {
      const row = await find(body.id);
      const protocol = body.protocol ?? (row.protocol as SyslogProtocol);
      const pick = (given: string | undefined, stored: string | null) =>
        given === undefined ? stored : given === '' ? null : given;
      const storedKey =
        row.client_key && row.key_domain
          ? await deps.secrets.open(row.key_domain, row.id, row.client_key)
          : null;
      const next = {
        host: body.host ?? row.host,
        protocol,
        ca_cert: pick(body.ca_cert, row.ca_cert),
        client_cert: pick(body.client_cert, row.client_cert),
        client_key: pick(body.client_key, storedKey),
      };
      await checkSettings(next);
      const changes: Partial<SyslogServerTable> = {
        name: body.name ?? row.name,
        host: next.host,
        port:
          body.port ??
          (body.protocol && body.protocol !== row.protocol ? SYSLOG_DEFAULT_PORTS[protocol] : row.port),
        protocol,
        format: body.format ?? row.format,
        streams: body.streams ? JSON.stringify([...new Set(body.streams)]) : row.streams,
        enabled: body.enabled === undefined ? row.enabled : body.enabled ? 1 : 0,
        ca_cert: next.ca_cert,
        client_cert: next.client_cert,
        client_key: next.client_key ? await deps.secrets.seal(actor.domainId, row.id, next.client_key) : null,
        key_domain: next.client_key ? actor.domainId : null,
        failures: 0,
        updated_at: now(),
      };
      // Taking the client stream now: it starts from the newest record, not the first one kept.
      const takesClient =
        deps.clientLogs && streamsOf(row).includes('client') === false && body.streams?.includes('client');
      const clientHead = takesClient ? await deps.clientLogs!().lastSeq() : null;
      await db
        .transaction()
        .execute(async (trx) => {
          await updateServer(trx, row.id, changes);
          if (clientHead !== null && !(await movePosition(trx, row.id, CLIENT_CHAIN, clientHead)))
            await insertPosition(trx, row.id, CLIENT_CHAIN, clientHead);
          await audit.byCaller(trx, actor, meta, {
            action: 'syslog.update',
            target: changes.name ?? row.name,
            details: {
              host: changes.host ?? '',
              port: changes.port ?? 0,
              protocol,
              enabled: changes.enabled === 1,
            },
          });
        })
        .catch(nameTaken(changes.name ?? ''));
      return view(await find(row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows = await serversIn(db, ids);
      if (rows.length === 0) return { deleted: 0 };
      await db.transaction().execute(async (trx) => {
        await deleteServers(trx, ids);
        for (const r of rows)
          await audit.byCaller(trx, actor, meta, { action: 'syslog.delete', target: r.name });
      });
      return { deleted: rows.length };
    },

    /** One test event now, over a connection of its own. */
    async test(actor: Actor, meta: RequestMeta, id: string) {
      const row = await find(id);
      const started = performance.now();
      const event: SyslogEvent = {
        id: uuidv7(),
        sequence: 'test:0',
        at: now(),
        severity: 'INFO',
        action: 'syslog.test',
        target: row.name,
        result: 'success',
        username: actor.username,
        domain: actor.domainName,
        source: 'web',
        ip: meta.ip,
        count: 1,
        details: JSON.stringify({ test: true, node: deps.nodeName }),
      };
      let ok = true;
      let detail = row.protocol === 'udp' ? 'sent (UDP has no acknowledgement)' : 'delivered';
      try {
        await deliver(await receiverOf(deps.secrets, row), [
          formatMessage(row.format as SyslogFormat, event, deps.nodeName),
        ]);
      } catch (err) {
        ok = false;
        detail = err instanceof Error ? err.message.slice(0, 300) : String(err);
      }
      const ms = Math.round((performance.now() - started) * 10) / 10;
      await audit.byCaller(db, actor, meta, {
        action: 'syslog.test',
        target: row.name,
        result: ok ? 'success' : 'failure',
        details: { detail, ms },
      });
      return { ok, detail, ms };
    },
  };
}
