import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import {
  SYSLOG_DEFAULT_PORTS,
  type Input,
  type LogSeverity,
  type QueryInput,
  type SyslogFormat,
  type SyslogProtocol,
  type SyslogServer,
  type SyslogStream,
  type api,
} from '@ksp/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { subjectOf, writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import { isUniqueViolation, type Db } from '../../platform/db/database.js';
import type { SyslogServerTable } from '../../platform/db/schema.js';
import { conflict, invalid, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { SecretBox } from '../../platform/keyring/secret-box.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  formatClientMessage,
  formatMessage,
  type ClientSyslogEvent,
  type SyslogEvent,
} from './syslog.format.js';
import { deliver, type Receiver } from './syslog.transport.js';

/** Records read and sent per chain per round. */
const BATCH = 500;
/** Backoff after failures: 5 s, doubling, at most 5 minutes. */
const backoffSeconds = (failures: number) => Math.min(300, 5 * 2 ** Math.max(0, failures - 1));
const ALARM_SEVERITIES: readonly LogSeverity[] = ['ERROR', 'CRITICAL'];
/**
 * The `alarm` stream: records of severity ERROR or CRITICAL, and the alarm area's records
 * (`alarm.raise` above all) whatever their severity.
 */
const isAlarmRecord = (r: { severity: string; area: string }) =>
  r.area === 'alarm' || ALARM_SEVERITIES.includes(r.severity as LogSeverity);

/** The position key of the client records in `syslog_position` (chains are domain ids or ''). */
const CLIENT_CHAIN = 'client';

const streamsOf = (row: SyslogServerTable) => JSON.parse(row.streams) as SyslogStream[];

function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function checkCertificates(text: string, key: 'syslog.badCaCert' | 'syslog.badClientCert') {
  const blocks = splitPem(text);
  if (blocks.length === 0) throw invalid(key, { reason: 'no BEGIN CERTIFICATE block' });
  for (const pem of blocks) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw invalid(key, { reason: err instanceof Error ? err.message.slice(0, 120) : 'unreadable' });
    }
  }
}

export function createSyslogService(deps: {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  nodeName: string;
  log?: FastifyBaseLogger;
  /** The client records (stream `client`), read after their sequence number. */
  clientLogs?: () => ModuleServices['clientLogs'];
}) {
  const { db, clock } = deps;
  const now = () => clock().toISOString();

  async function lagOf(serverId: string): Promise<number> {
    const heads = await db.selectFrom('audit_chain').select(['chain', 'seq']).execute();
    const positions = new Map(
      (
        await db
          .selectFrom('syslog_position')
          .select(['chain', 'seq'])
          .where('server_id', '=', serverId)
          .execute()
      ).map((p) => [p.chain, Number(p.seq)]),
    );
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
    const row = await db.selectFrom('syslog_server').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('syslog.notFound', { id });
    return row;
  };

  /** Checks a receiver's settings as they will be stored: host, certificates, key pair. */
  async function checked(next: {
    host: string;
    protocol: SyslogProtocol;
    ca_cert: string | null;
    client_cert: string | null;
    client_key: string | null;
  }) {
    if (!isIP(next.host)) {
      try {
        await lookup(next.host);
      } catch (err) {
        throw invalid('syslog.hostUnresolved', {
          host: next.host,
          reason: (err as NodeJS.ErrnoException).code ?? 'unknown',
        });
      }
    }
    if (next.protocol !== 'tls') {
      for (const field of ['ca_cert', 'client_cert', 'client_key'] as const)
        if (next[field]) throw invalid('syslog.tlsOnly', { field });
      return;
    }
    if (next.ca_cert) checkCertificates(next.ca_cert, 'syslog.badCaCert');
    if (Boolean(next.client_cert) !== Boolean(next.client_key)) throw invalid('syslog.clientPair');
    if (next.client_cert && next.client_key) {
      checkCertificates(next.client_cert, 'syslog.badClientCert');
      try {
        const key = createPrivateKey(next.client_key);
        const pub = createPublicKey(key).export({ type: 'spki', format: 'der' });
        const certKey = new X509Certificate(splitPem(next.client_cert)[0]!).publicKey.export({
          type: 'spki',
          format: 'der',
        });
        if (!pub.equals(certKey)) throw new Error('mismatch');
      } catch {
        throw invalid('syslog.badClientKey');
      }
    }
  }

  const audit = (actor: Actor, meta: RequestMeta, action: string, target: string, details = {}) =>
    writeAudit(
      db,
      { who: subjectOf(actor), action, target, result: 'success', ip: meta.ip, details },
      clock(),
    );

  async function receiverOf(row: SyslogServerTable): Promise<Receiver> {
    return {
      host: row.host,
      port: row.port,
      protocol: row.protocol as SyslogProtocol,
      ca: row.ca_cert,
      cert: row.client_cert,
      key:
        row.client_key && row.key_domain
          ? await deps.secrets.open(row.key_domain, row.id, row.client_key)
          : null,
    };
  }

  const domainNames = async () =>
    new Map((await db.selectFrom('domain').select(['id', 'name']).execute()).map((d) => [d.id, d.name]));

  /** Sends what one receiver has not had yet, chain by chain; stops at the first failure. */
  async function forwardTo(row: SyslogServerTable, names: Map<string, string>): Promise<number> {
    const streams = streamsOf(row);
    const wantsAll = streams.includes('server');
    const wantsAlarms = streams.includes('alarm');
    const receiver = await receiverOf(row);
    const heads = await db.selectFrom('audit_chain').select(['chain', 'seq']).execute();
    let sent = 0;
    for (const head of heads) {
      for (;;) {
        const position = await db
          .selectFrom('syslog_position')
          .select('seq')
          .where('server_id', '=', row.id)
          .where('chain', '=', head.chain)
          .executeTakeFirst();
        const from = Number(position?.seq ?? 0);
        if (from >= Number(head.seq)) break;
        let q = db
          .selectFrom('audit_log')
          .selectAll()
          .where('chain_seq', '>', from)
          .where('chain_seq', '<=', Number(head.seq))
          .orderBy('chain_seq')
          .limit(BATCH);
        q = head.chain === '' ? q.where('domain_id', 'is', null) : q.where('domain_id', '=', head.chain);
        const records = await q.execute();
        if (records.length === 0) break;
        const picked = records.filter((r) => wantsAll || (wantsAlarms && isAlarmRecord(r)));
        const messages = picked.map((r) =>
          formatMessage(
            row.format as SyslogFormat,
            {
              id: r.id,
              sequence: `${head.chain || 'system'}:${Number(r.chain_seq)}`,
              at: r.at,
              severity: r.severity as LogSeverity,
              action: r.action,
              target: r.target,
              result: r.result,
              username: r.username,
              domain: r.domain_id ? (names.get(r.domain_id) ?? r.domain_name) : '',
              source: r.source,
              ip: r.source_ip,
              count: Number(r.count),
              details: r.details,
            },
            deps.nodeName,
          ),
        );
        // Delivered first, then the position moves: a failure leaves these for the next round.
        await deliver(receiver, messages);
        const last = Number(records.at(-1)!.chain_seq);
        await db.transaction().execute(async (trx) => {
          if (position)
            await trx
              .updateTable('syslog_position')
              .set({ seq: last })
              .where('server_id', '=', row.id)
              .where('chain', '=', head.chain)
              .execute();
          else
            await trx
              .insertInto('syslog_position')
              .values({ server_id: row.id, chain: head.chain, seq: last })
              .execute();
          await trx
            .updateTable('syslog_server')
            .set((eb) => ({
              sent: eb('sent', '+', picked.length),
              failures: 0,
              last_error: null,
              last_error_at: null,
              ...(picked.length ? { last_sent_at: now() } : {}),
            }))
            .where('id', '=', row.id)
            .execute();
        });
        sent += picked.length;
        if (records.length < BATCH) break;
      }
    }
    if (deps.clientLogs) sent += await forwardClientRecords(row, receiver, streams.includes('client'), names);
    return sent;
  }

  async function moveClientPosition(row: SyslogServerTable, known: boolean, seq: number, sent: number) {
    await db.transaction().execute(async (trx) => {
      if (known)
        await trx
          .updateTable('syslog_position')
          .set({ seq })
          .where('server_id', '=', row.id)
          .where('chain', '=', CLIENT_CHAIN)
          .execute();
      else
        await trx
          .insertInto('syslog_position')
          .values({ server_id: row.id, chain: CLIENT_CHAIN, seq })
          .execute();
      if (sent > 0)
        await trx
          .updateTable('syslog_server')
          .set((eb) => ({
            sent: eb('sent', '+', sent),
            failures: 0,
            last_error: null,
            last_error_at: null,
            last_sent_at: now(),
          }))
          .where('id', '=', row.id)
          .execute();
    });
  }

  /**
   * The client stream: records after the receiver's position (chain `client`), in order of
   * receipt. A receiver without a position yet starts at the newest record; one that does not
   * take the stream keeps its position, which `update` moves to the newest record when the
   * stream is taken, so that it starts from then, not from the first record kept.
   */
  async function forwardClientRecords(
    row: SyslogServerTable,
    receiver: Receiver,
    wanted: boolean,
    names: Map<string, string>,
  ): Promise<number> {
    const clientLogs = deps.clientLogs!();
    let sent = 0;
    for (;;) {
      const position = await db
        .selectFrom('syslog_position')
        .select('seq')
        .where('server_id', '=', row.id)
        .where('chain', '=', CLIENT_CHAIN)
        .executeTakeFirst();
      if (!position) {
        await moveClientPosition(row, false, await clientLogs.lastSeq(), 0);
        return sent;
      }
      // Not taken: the position stays (taking the stream moves it, in `update`). Moving it here
      // could skip records written after an update this round's row predates.
      if (!wanted) return sent;
      const records = await clientLogs.recordsAfter(Number(position.seq), BATCH);
      if (records.length === 0) return sent;
      const messages = records.map((r) => {
        const event: ClientSyslogEvent = {
          id: r.id,
          sequence: `${CLIENT_CHAIN}:${Number(r.seq)}`,
          receivedAt: r.received_at,
          agentAt: r.agent_at,
          level: r.level as ClientSyslogEvent['level'],
          action: r.action,
          effect: r.effect,
          policy: r.policy,
          guardPoint: r.guard_point,
          osUser: r.os_user,
          process: r.process,
          resource: r.resource,
          clientId: r.client_id,
          clientName: r.client_name,
          clientOs: r.client_os,
          ip: r.client_ip,
          domain: names.get(r.domain_id) ?? '',
          details: r.details,
        };
        return formatClientMessage(row.format as SyslogFormat, event, deps.nodeName);
      });
      // Delivered first, then the position moves: a failure leaves these for the next round.
      await deliver(receiver, messages);
      await moveClientPosition(row, true, Number(records.at(-1)!.seq), records.length);
      sent += records.length;
      if (records.length < BATCH) return sent;
    }
  }

  /** The delivery round under way or last run (`forward`). */
  let rounds: Promise<number> = Promise.resolve(0);

  return {
    async list(query: QueryInput<typeof api.syslog.list>) {
      const rows = await db
        .selectFrom('syslog_server')
        .selectAll()
        .orderBy('name')
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
        .execute();
      const total = await db
        .selectFrom('syslog_server')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return { data: await Promise.all(rows.map(view)), total: Number(total.n) };
    },

    async create(actor: Actor, meta: RequestMeta, body: Input<typeof api.syslog.create>) {
      const next = {
        host: body.host,
        protocol: body.protocol,
        ca_cert: body.ca_cert || null,
        client_cert: body.client_cert || null,
        client_key: body.client_key || null,
      };
      await checked(next);
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
      try {
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('syslog_server').values(row).execute();
          // It gets the records written from now on: every chain starts at its head.
          const heads = await trx.selectFrom('audit_chain').select(['chain', 'seq']).execute();
          for (const h of heads)
            await trx
              .insertInto('syslog_position')
              .values({ server_id: id, chain: h.chain, seq: Number(h.seq) })
              .execute();
          if (clientHead !== null)
            await trx
              .insertInto('syslog_position')
              .values({ server_id: id, chain: CLIENT_CHAIN, seq: clientHead })
              .execute();
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('syslog.nameTaken', { name: body.name });
        throw err;
      }
      await audit(actor, meta, 'syslog.create', body.name, {
        host: row.host,
        port: row.port,
        protocol: row.protocol,
        format: row.format,
      });
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
      await checked(next);
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
      try {
        await db.transaction().execute(async (trx) => {
          await trx.updateTable('syslog_server').set(changes).where('id', '=', row.id).execute();
          if (clientHead === null) return;
          const moved = await trx
            .updateTable('syslog_position')
            .set({ seq: clientHead })
            .where('server_id', '=', row.id)
            .where('chain', '=', CLIENT_CHAIN)
            .executeTakeFirst();
          if (Number(moved.numUpdatedRows) === 0)
            await trx
              .insertInto('syslog_position')
              .values({ server_id: row.id, chain: CLIENT_CHAIN, seq: clientHead })
              .execute();
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict('syslog.nameTaken', { name: changes.name ?? '' });
        throw err;
      }
      await audit(actor, meta, 'syslog.update', changes.name ?? row.name, {
        host: changes.host ?? '',
        port: changes.port ?? 0,
        protocol,
        enabled: changes.enabled === 1,
      });
      return view(await find(row.id));
    },

    async remove(actor: Actor, meta: RequestMeta, ids: string[]) {
      const rows = await db
        .selectFrom('syslog_server')
        .select(['id', 'name'])
        .where('id', 'in', ids)
        .execute();
      if (rows.length === 0) return { deleted: 0 };
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('syslog_position').where('server_id', 'in', ids).execute();
        await trx.deleteFrom('syslog_server').where('id', 'in', ids).execute();
      });
      for (const r of rows) await audit(actor, meta, 'syslog.delete', r.name);
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
        await deliver(await receiverOf(row), [
          formatMessage(row.format as SyslogFormat, event, deps.nodeName),
        ]);
      } catch (err) {
        ok = false;
        detail = err instanceof Error ? err.message.slice(0, 300) : String(err);
      }
      const ms = Math.round((performance.now() - started) * 10) / 10;
      await writeAudit(
        db,
        {
          who: subjectOf(actor),
          action: 'syslog.test',
          target: row.name,
          result: ok ? 'success' : 'failure',
          ip: meta.ip,
          details: { detail, ms },
        },
        clock(),
      );
      return { ok, detail, ms };
    },

    /**
     * The delivery round (the `syslog.forward` job): every enabled receiver not in backoff.
     * Rounds of this process run one after another (a round asked for while one runs starts
     * when it ends): two at once would both send the records past the same stored position.
     */
    forward(): Promise<number> {
      const next = rounds.catch(() => 0).then(forwardRound);
      rounds = next;
      return next;
    },
  };

  async function forwardRound(): Promise<number> {
    const rows = await db.selectFrom('syslog_server').selectAll().where('enabled', '=', 1).execute();
    const names = await domainNames();
    let total = 0;
    for (const row of rows) {
      if (row.failures > 0 && row.last_error_at) {
        const retryAt = Date.parse(row.last_error_at) + backoffSeconds(row.failures) * 1000;
        if (clock().getTime() < retryAt) continue;
      }
      try {
        total += await forwardTo(row, names);
      } catch (err) {
        const message = err instanceof Error ? err.message.slice(0, 300) : String(err);
        await db
          .updateTable('syslog_server')
          .set((eb) => ({ failures: eb('failures', '+', 1), last_error: message, last_error_at: now() }))
          .where('id', '=', row.id)
          .execute();
        deps.log?.warn({ receiver: row.name, err: message }, 'syslog delivery failed');
      }
    }
    return total;
  }
}

export type SyslogService = ReturnType<typeof createSyslogService>;
